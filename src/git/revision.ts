import path from "node:path";
import { countOf } from "../errors/count-of.js";
import { ToolError } from "../errors/tool-error.js";
import { gitError, missingObjectError, shallowCloneError } from "./git-errors.js";
import { loadIsomorphicGit } from "./isomorphic-git-module.js";
import { MissingObjectError } from "./objects/git-object.js";
import type { CommitRecord } from "./objects/parse-objects.js";
import { RefResolver } from "./refs.js";
import type { GitRepository } from "./repository.js";

/** A revision the model named, resolved to a commit. */
export interface ResolvedRevision {
  /** What the model wrote, e.g. `"main~2"`. */
  readonly input: string;
  /** The commit. */
  readonly commit: CommitRecord;
}

const SUFFIX = /[~^]\d*/g;
const FORBIDDEN = /(\.\.)|[\s:?*[\\]|@\{|^\/|\/$|\.lock$|^-/;
const hasControlCharacter = (text: string) =>
  [...text].some((character) => character.charCodeAt(0) < 0x20 || character.charCodeAt(0) === 0x7f);

function invalidRevision(input: string, why: string): Error {
  const hint = input.includes("..")
    ? "Name one revision here; git_diff_range takes a range (A..B, A...B) in from, with no to."
    : "Use a branch or tag name, HEAD, a commit id (at least 4 hex digits), optionally with ~N or ^N, e.g. main~2.";
  return gitError("invalid_ref", `${JSON.stringify(input)} is not a revision: ${why}.`, hint);
}

/**
 * Refusals a ref lookup never turns into "no such ref": confinement, a broken ref, a planted huge
 * file, a ref file that is a FIFO or socket (`corrupt_object`).
 */
const QUIET_NEVER: ReadonlySet<string> = new Set(["repository_outside_workspace", "invalid_ref", "too_large", "corrupt_object"]);

/**
 * For ref lookups that may fail quietly: a confinement refusal is never quiet, nor a file over the
 * size bound, nor a broken ref (`invalid_ref`), which would otherwise read as "no such ref" (or "no commits yet").
 */
function quietly<Value>(fallback: Value): (error: unknown) => Value {
  return (error) => {
    if (error instanceof ToolError && QUIET_NEVER.has(error.code)) throw error;
    return fallback;
  };
}

async function branchNames(repository: GitRepository): Promise<string[]> {
  const gitdir = repository.location.commondir;
  const git = await loadIsomorphicGit();
  return git.listBranches({ fs: repository.fs, gitdir }).catch(quietly<string[]>([]));
}

async function hasAnyBranch(repository: GitRepository): Promise<boolean> {
  return (await branchNames(repository)).length > 0;
}

/**
 * HEAD on a branch with no commits (after `git checkout --orphan`) while other branches have
 * some: git says "your current branch ... does not have any commits yet"; the model can name one.
 */
async function unbornBranchError(repository: GitRepository, target: string): Promise<Error | undefined> {
  const branches = await branchNames(repository);
  if (branches.length === 0) return undefined;
  return gitError(
    "empty_repository",
    `The current branch has no commits yet (HEAD points to ${target}, which does not exist); other branches have commits.`,
    `Pass ref (or from) naming one of them: ${branches.slice(0, 5).join(", ")}${branches.length > 5 ? ", ..." : ""}.`,
  );
}

async function resolveHead(repository: GitRepository): Promise<string> {
  const head = (await repository.files.readText(path.join(repository.location.gitdir, "HEAD")))?.trim() ?? "";
  if (/^[0-9a-f]{40}$/.test(head)) return head;
  const target = /^ref:\s*(\S+)$/.exec(head)?.[1];
  const resolved =
    target === undefined
      ? undefined
      : await new RefResolver(repository.files, repository.location.commondir).read(target).catch(quietly(undefined));
  if (resolved !== undefined) return resolved;
  const unborn = target === undefined ? undefined : await unbornBranchError(repository, target);
  if (unborn !== undefined) throw unborn;
  throw gitError(
    "empty_repository",
    `The repository has no commits yet${target === undefined ? "" : ` (HEAD points to ${target}, which does not exist)`}.`,
    "There is no history to search; commit something first.",
  );
}

function closeness(candidate: string, wanted: string): number {
  const a = candidate.toLowerCase();
  const b = wanted.toLowerCase();
  if (a.includes(b) || b.includes(a)) return 0;
  let common = 0;
  while (common < Math.min(a.length, b.length) && a[common] === b[common]) common++;
  return 1 + Math.abs(a.length - b.length) - common;
}

async function unknownRevision(repository: GitRepository, base: string): Promise<Error> {
  const gitdir = repository.location.commondir;
  if (!(await hasAnyBranch(repository))) await resolveHead(repository);
  const git = await loadIsomorphicGit();
  const names = [
    ...(await git.listBranches({ fs: repository.fs, gitdir }).catch(quietly<string[]>([]))),
    ...(await git.listTags({ fs: repository.fs, gitdir }).catch(quietly<string[]>([]))),
  ];
  const closest = names.sort((x, y) => closeness(x, base) - closeness(y, base) || x.localeCompare(y)).slice(0, 5);
  return gitError(
    "unknown_ref",
    `No branch, tag or commit named ${JSON.stringify(base)}.`,
    closest.length > 0 ? `Known names include: ${closest.join(", ")}.` : "Use HEAD or a commit id.",
  );
}

async function resolveBase(repository: GitRepository, base: string): Promise<string> {
  if (base === "HEAD" || base === "@") return resolveHead(repository);
  const named = /^[0-9a-f]{40}$/i.test(base)
    ? undefined
    : await new RefResolver(repository.files, repository.location.commondir).resolve(base).catch(quietly(undefined));
  if (named !== undefined) return named;
  if (/^[0-9a-f]{4,40}$/i.test(base)) {
    const matches = await repository.caches.store.expand(base.toLowerCase());
    if (matches.length === 1 && matches[0] !== undefined) return matches[0];
    if (matches.length > 1) {
      throw gitError("ambiguous_ref", `The short id ${base} matches ${matches.length} objects.`, "Give more hex digits.");
    }
  }
  throw await unknownRevision(repository, base);
}

/** Follows annotated tags to the commit they name. */
async function peelToCommit(repository: GitRepository, oid: string, input: string): Promise<CommitRecord> {
  let current = oid;
  for (let depth = 0; depth < 10; depth++) {
    const peeled = await repository.peel(current).catch((error: unknown) => {
      if (error instanceof MissingObjectError)
        throw gitError("unknown_ref", `${input} names ${oid}, which the repository does not have.`);
      throw error;
    });
    if (peeled.type === "commit") return repository.commit(current);
    if (peeled.tag === undefined) throw gitError("invalid_ref", `${input} names a ${peeled.type}, not a commit.`);
    current = peeled.tag.object;
  }
  throw gitError("invalid_ref", `${input} is a chain of more than 10 tags.`);
}

async function parentOf(repository: GitRepository, commit: CommitRecord, index: number, input: string): Promise<CommitRecord> {
  if (repository.isShallow(commit.oid)) throw shallowCloneError(commit.oid, `${input} cannot be resolved`);
  // From the graph by position: no parent id turned into text and looked up again.
  const graphed = repository.graphParents(commit)?.[index];
  if (graphed !== undefined) return graphed;
  const parent = commit.parents[index];
  if (parent === undefined) {
    throw gitError(
      "unknown_ref",
      `${input} does not exist: commit ${commit.oid.slice(0, 10)} has ${commit.parents.length === 0 ? "no parents (it is the first commit)" : `only ${countOf(commit.parents.length, "parent")}`}.`,
    );
  }
  return repository.commit(parent).catch((error: unknown) => {
    throw error instanceof MissingObjectError ? missingObjectError(parent) : error;
  });
}

/**
 * Resolves what the model calls a revision: `HEAD`/`@`, a branch, tag or remote-tracking name, a
 * full or short commit id, each optionally followed by `~N` (N first parents back) and `^N` (the
 * Nth parent), e.g. `v1.2^2~3`. Annotated tags are peeled to their commit.
 */
export async function resolveRevision(repository: GitRepository, input: string): Promise<ResolvedRevision> {
  const trimmed = input.trim();
  const base = trimmed.replace(/([~^]\d*)+$/, "");
  if (base === "") throw invalidRevision(input, "it is empty");
  if (FORBIDDEN.test(base) || hasControlCharacter(base) || /[~^]/.test(base))
    throw invalidRevision(input, "it has characters a ref name cannot have");
  let commit = await peelToCommit(repository, await resolveBase(repository, base), input);
  for (const suffix of trimmed.slice(base.length).match(SUFFIX) ?? []) {
    const count = suffix.length > 1 ? Number.parseInt(suffix.slice(1), 10) : 1;
    if (suffix.startsWith("^")) {
      if (count > 0) commit = await parentOf(repository, commit, count - 1, input);
      continue;
    }
    for (let step = 0; step < count; step++) commit = await parentOf(repository, commit, 0, input);
  }
  return { input: trimmed, commit };
}
