import * as nodeFs from "node:fs";
import { lstatSync } from "node:fs";
import path from "node:path";
import type { ToolContext } from "agent-tool-catalog";
import type { FsClient } from "isomorphic-git";
import { ToolError } from "../errors/tool-error.js";
import { childWorkspaceEscape } from "../policy/child-workspaces.js";
import { workspaceMoved } from "../policy/workspace-pins.js";
import { configValue } from "./config-value.js";
import { type FileAccess, fileAccess, readerFileAccess } from "./file-access.js";
import { type GitCache, repositoryCaches } from "./git-cache.js";
import { gitError } from "./git-errors.js";
import {
  confinedReader,
  type GitFileReader,
  MAX_METADATA_BYTES,
  metadataTooLargeError,
  unconfinedReader,
} from "./git-file-reader.js";
import { Mailmap, NO_MAILMAP } from "./mailmap.js";
import { IsomorphicObjectStore } from "./objects/isomorphic-object-store.js";
import { NodeObjectStore, objectDirectories } from "./objects/node-object-store.js";
import { ReplacingObjectStore } from "./objects/replacing-object-store.js";
import { readerFsClient } from "./reader-fs-client.js";
import { readReplacements } from "./replacements.js";
import { GitRepository, type RepositoryLocation } from "./repository.js";
import { resolveRevision } from "./revision.js";

/** What {@link openRepository} needs from the tool options. */
export interface OpenRepositoryOptions {
  /** The host's repository path, if any. */
  readonly repositoryPath?: string | undefined;
  /** The host's fs client, if any (then every read goes through isomorphic-git). */
  readonly fs?: FsClient | undefined;
  /** The shared cache. */
  readonly cache: GitCache;
}

async function gitdirOf(files: FileAccess, directory: string): Promise<string | undefined> {
  const dotGit = path.join(directory, ".git");
  const kind = await files.kind(dotGit);
  if (kind === "directory") return dotGit;
  if (kind !== "file") return undefined;
  const pointer = /^gitdir:\s*(.+)$/m.exec((await files.readText(dotGit)) ?? "")?.[1]?.trim();
  if (pointer === undefined) return undefined;
  // Opened before anything inside it is read, so a confined reader refuses an outside gitdir here.
  const gitdir = path.resolve(directory, pointer);
  return (await files.kind(gitdir)) === "directory" ? gitdir : undefined;
}

async function isBare(files: FileAccess, directory: string): Promise<boolean> {
  return (
    (await files.kind(path.join(directory, "HEAD"))) === "file" &&
    (await files.kind(path.join(directory, "objects"))) === "directory"
  );
}

/** Finds the repository at `start`, or above it when `searchUpwards`. */
async function locate(files: FileAccess, start: string, searchUpwards: boolean): Promise<RepositoryLocation | undefined> {
  if (await isBare(files, start)) return { gitdir: start, commondir: start, worktree: undefined, base: start };
  for (let directory = start; ; directory = path.dirname(directory)) {
    const gitdir = await gitdirOf(files, directory);
    if (gitdir !== undefined) {
      const common = (await files.readText(path.join(gitdir, "commondir")))?.trim();
      const commondir = common === undefined || common === "" ? gitdir : path.resolve(gitdir, common);
      if (commondir !== gitdir && (await files.kind(commondir)) !== "directory") return undefined;
      return { gitdir, commondir, worktree: directory, base: start };
    }
    if (!searchUpwards || path.dirname(directory) === directory) return undefined;
  }
}

/**
 * Refuses a repository whose object ids are not SHA-1 (`git init --object-format=sha256`): its
 * 64-digit ids would read as broken refs ("holds neither a commit id nor ...") and send the model
 * to repair a healthy repository. Asked only once a call has failed (such a repository never
 * answers: its refs and objects do not parse), so a call that succeeds reads no `config`.
 */
export async function requireSha1(files: FileAccess, commondir: string): Promise<void> {
  // `extensions.objectFormat`, `sha1` when unset.
  const format = configValue(await files.readText(path.join(commondir, "config")), "extensions", "objectformat") ?? "sha1";
  if (format === "sha1") return;
  throw gitError(
    "not_a_git_repository",
    `The repository uses ${format.toUpperCase()} object ids (extensions.objectFormat = ${format}); the git tools read only SHA-1 repositories.`,
    "Use git itself in a shell for this repository (git log, git blame, git diff); the repository is not damaged.",
  );
}

/**
 * The working tree's `.mailmap`, which `git shortlog`, `git log` and `git blame` apply by default.
 * A symbolic link is not followed (git 2.32 and later read `.mailmap` with O_NOFOLLOW); a bare
 * repository reads `HEAD:.mailmap` instead (see headMailmap).
 */
async function readMailmap(files: FileAccess, location: RepositoryLocation, onNodeFs: boolean): Promise<Mailmap> {
  if (location.worktree === undefined) return NO_MAILMAP;
  const file = path.join(location.worktree, ".mailmap");
  if (onNodeFs) {
    if (lstatSync(file, { throwIfNoEntry: false })?.isFile() !== true) return NO_MAILMAP;
  }
  const text = await files.readText(file);
  return text === undefined ? NO_MAILMAP : new Mailmap(text);
}

/**
 * A bare repository's mailmap: `HEAD:.mailmap`, which git reads by default there
 * (`mailmap.blob`); `undefined` when HEAD has none or cannot be read (an empty repository, a
 * damaged one: the call meets that itself and reports it). Refusals (confinement, size) stand.
 */
async function headMailmap(repository: GitRepository): Promise<Mailmap | undefined> {
  try {
    const head = await resolveRevision(repository, "HEAD");
    const entry = await repository.entryAt(head.commit.tree, ".mailmap");
    if (entry?.kind !== "blob") return undefined;
    const blob = await repository.blob(entry.oid);
    if (blob.length > MAX_METADATA_BYTES) throw metadataTooLargeError(".mailmap", blob.length);
    return new Mailmap(blob.toString("utf8"));
  } catch (error) {
    // A refusal stands; anything else (no commits, a damaged HEAD) the call itself meets and reports.
    if (error instanceof ToolError && (error.code === "repository_outside_workspace" || error.code === "too_large")) throw error;
    return undefined;
  }
}

async function readShallow(files: FileAccess, commondir: string): Promise<ReadonlySet<string>> {
  const text = await files.readText(path.join(commondir, "shallow"));
  if (text === undefined) return new Set();
  return new Set(text.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line)));
}

/** Relative paths start at the workspace when it is inside the working tree, else at the top of the repository. */
function withBase(location: RepositoryLocation, workspace: string | undefined): RepositoryLocation {
  const root = location.worktree;
  if (root === undefined) return location;
  const inside = workspace === undefined ? undefined : path.relative(root, path.resolve(workspace));
  const outside = inside === undefined || inside === ".." || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside);
  const base = outside ? root : path.resolve(root, inside);
  return { ...location, base };
}

/**
 * Opens the repository of a call: the host's `repositoryPath`, else the run's workspace. Under
 * sandbox `"workspace"` (and without a host path) only the workspace itself is tried, never a
 * repository above it, since that would expose history of files outside the sandbox.
 */
export async function openRepository(context: ToolContext, options: OpenRepositoryOptions): Promise<GitRepository> {
  const configured = options.repositoryPath === undefined ? undefined : path.resolve(options.repositoryPath);
  const start = configured ?? context.permissions.workspace;
  if (start === undefined) {
    throw gitError(
      "no_repository",
      "No repository to read: the run has no workspace and the git tools were given no repositoryPath.",
      "The host must pass permissions.workspace to createRun() or repositoryPath to createGitTools().",
    );
  }
  // Under the workspace sandbox every read is confined to the workspace (or to the repository the
  // host named): a .git file, commondir, alternates or symlink that leads elsewhere is refused.
  const confined = context.permissions.sandbox === "workspace" && options.fs === undefined;
  // A child run's workspace may have been replaced by a link since the run was made (its parent's
  // commands own the directories on the way): its repository would be the link's target. So may a
  // top-level run's, by another run's command whose workspace holds it (policy/workspace-pins.ts).
  const leftBy = confined && configured === undefined ? childWorkspaceEscape(start) : undefined;
  if (leftBy !== undefined) {
    throw gitError(
      "repository_outside_workspace",
      `Refused to read the repository of this run's workspace: it must stay inside its parent run's workspace, but ${leftBy} (a directory on the way was replaced by a link).`,
      "Ask the user to restore the directory.",
    );
  }
  if (confined && configured === undefined && workspaceMoved(start)) {
    throw gitError(
      "repository_outside_workspace",
      "Refused to read the repository of this run's workspace: it is no longer where it was on disk when the run was made (a directory on the way was replaced by a link).",
      "Ask the user to restore the directory.",
    );
  }
  const reader: GitFileReader = confined ? confinedReader(start) : unconfinedReader();
  const fs: FsClient = options.fs ?? (confined ? readerFsClient(reader) : nodeFs);
  const files = options.fs === undefined ? readerFileAccess(reader) : fileAccess(options.fs);
  const searchUpwards = configured !== undefined || context.permissions.sandbox !== "workspace";
  const found = await locate(files, path.resolve(start), searchUpwards && !confined);
  const location = found === undefined ? undefined : withBase(found, context.permissions.workspace);
  if (location === undefined || (await files.kind(path.join(location.commondir, "objects"))) !== "directory") {
    throw gitError(
      "not_a_git_repository",
      `${start} is not inside a git repository${searchUpwards ? "" : " (under the workspace sandbox only the workspace itself is checked)"}.`,
      "The git tools only read existing repositories; use them in a directory with a .git folder.",
    );
  }
  // The confinement root is part of the key: a store opened without confinement is never reused by a confined call.
  const confinedKey = reader.root === undefined ? location.commondir : `${location.commondir}\u0000${reader.root}`;
  // Replace refs and grafts change what an id reads as (git honours both by default): objects read
  // under one set are cached apart from those read under another, or under none.
  const replaced = await readReplacements(files, location.commondir);
  const key = replaced === undefined ? confinedKey : `${confinedKey}\u0000replace:${replaced.fingerprint}`;
  const caches = repositoryCaches(options.cache, options.fs, key, (isomorphicCache) => {
    const store =
      options.fs === undefined
        ? new NodeObjectStore(objectDirectories(path.join(location.commondir, "objects"), reader), reader)
        : new IsomorphicObjectStore(options.fs, location.commondir, isomorphicCache);
    return replaced === undefined ? store : new ReplacingObjectStore(store, replaced.replacements);
  });
  const shallow = await readShallow(files, location.commondir);
  if (location.worktree !== undefined) {
    return new GitRepository(location, caches, fs, files, shallow, await readMailmap(files, location, options.fs === undefined));
  }
  const bare = new GitRepository(location, caches, fs, files, shallow);
  const mailmap = await headMailmap(bare);
  return mailmap === undefined ? bare : new GitRepository(location, caches, fs, files, shallow, mailmap);
}
