import { realpathSync, statSync } from "node:fs";
import { lstat, readdir, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { processWideMap } from "../../tool/process-wide-map.js";
import { LinkOnTheWay, openVerifiedDirectory, type VerifiedDirectory } from "../../tools/fs/verified-directory.js";
import { hasErrorCode } from "./atomic-file.js";

/**
 * The process-wide key of the workspace anchors. `workspaceSkillsDirectory` hands the host a plain
 * string, which can carry nothing else, and the host may pass it to a store of another copy of
 * this package: a process that imports the ESM build in one place and requires the CommonJS build
 * in another has two module instances, and a module-level map in each let the other copy's store
 * anchor at the skills directory itself (following `.myapp/skills` already linked out). The record
 * is a fact about a path, only ever added to, and every copy must see the same one, so it lives on
 * `globalThis` under a registered symbol (`.v1`: a later layout takes a new key).
 */
const ANCHORS_KEY = Symbol.for("agent-tool-catalog.workspace-anchors.v1");

/**
 * Workspaces of the directories `workspaceSkillsDirectory` (and friends) made: a store on one of
 * those paths anchors at the workspace, so `.<app>` and the store folder below it may not be
 * links (a sandboxed command can plant them there; the workspace itself is the host's).
 */
function workspaceAnchors(): Map<string, string> {
  return processWideMap(ANCHORS_KEY);
}

/** Records that `directory` lies in `workspace` (by the workspace convention): stores anchor there. */
export function rememberWorkspaceAnchor(directory: string, workspace: string): void {
  workspaceAnchors().set(path.resolve(directory), path.resolve(workspace));
}

interface Pin {
  /** The anchor's real path, resolved once. */
  readonly real: string;
  readonly dev: number;
  readonly ino: number;
  /** Components from the anchor down to the store directory (none may be a link). */
  readonly below: readonly string[];
}

/**
 * A host data directory (skills, profiles, prompt extensions) whose every read, write and delete
 * goes through directory handles opened without following links, component by component from an
 * anchor the host configured. The anchor (by default the directory itself, or the workspace for a
 * directory made by the workspace convention, `<workspace>/.<app>/skills`) is resolved once, at
 * first use, and its identity pinned: a link the host set up (`~/.config` to a dotfiles folder,
 * the directory itself) is followed that one time; one a sandboxed command plants at or below the
 * anchor is refused (`symlink_refused`), as is the anchor replaced by another folder.
 */
export class PinnedHostDirectory {
  /** The configured directory. */
  readonly directory: string;
  private readonly anchor: string;
  private pin: Pin | undefined;

  constructor(directory: string, anchor?: string) {
    this.directory = path.resolve(directory);
    const chosen = path.resolve(anchor ?? workspaceAnchors().get(this.directory) ?? this.directory);
    const relative = path.relative(chosen, this.directory);
    // An anchor not at or above the directory pins the directory itself instead.
    this.anchor = relative.startsWith("..") || path.isAbsolute(relative) ? this.directory : chosen;
  }

  /** Resolves the anchor once (the nearest existing folder at or above it when it is missing). */
  private pinned(): Pin {
    if (this.pin !== undefined) return this.pin;
    let existing = this.anchor;
    for (;;) {
      try {
        const real = realpathSync(existing);
        const stats = statSync(real);
        const below = path
          .relative(existing, this.directory)
          .split(path.sep)
          .filter((part) => part !== "");
        this.pin = { real, dev: stats.dev, ino: stats.ino, below };
        return this.pin;
      } catch (error) {
        const parent = path.dirname(existing);
        if (!hasErrorCode(error, "ENOENT") || parent === existing) throw error;
        existing = parent;
      }
    }
  }

  /**
   * Opens `extra` folders below the store directory (made first with `create`), or `undefined`
   * when one is missing. The caller closes the result.
   * @throws ToolError `symlink_refused` when a component is a link, or the anchor changed.
   */
  async open(extra: readonly string[], create: boolean): Promise<VerifiedDirectory | undefined> {
    const pin = this.pinned();
    const segments = [...pin.below, ...extra];
    const expected = path.join(pin.real, ...segments);
    try {
      return await openVerifiedDirectory(pin.real, segments, {
        create,
        checkInside: (realPath) => {
          if (realPath !== expected) throw new LinkOnTheWay(path.basename(expected));
        },
        visit: async (at, depth) => {
          if (depth !== 0) return;
          // The anchor folder itself replaced (moved away, another folder put there) since it was pinned.
          const now = statSync(at("."));
          if (now.dev !== pin.dev || now.ino !== pin.ino) throw new LinkOnTheWay(path.basename(pin.real));
        },
      });
    } catch (error) {
      if (error instanceof LinkOnTheWay) throw this.refused(error.component);
      if (hasErrorCode(error, "ENOENT") && !create) return undefined;
      if (hasErrorCode(error, "ELOOP") || hasErrorCode(error, "ENOTDIR")) throw this.refused(path.basename(pin.real));
      throw error;
    }
  }

  /** The refusal for a component that is a link (or was swapped) on the way. */
  refused(component: string): ToolError {
    return new ToolError(
      "symlink_refused",
      `"${component}" on the way to ${this.directory} is a symbolic link or was replaced; it is not followed and nothing was changed.`,
      { hint: "The host must replace it with a plain directory." },
    );
  }
}

/**
 * Removes the folder `name` of `parent` and everything in it without following any link: each
 * level is opened through the handle of the one above with `O_NOFOLLOW`, links and files are
 * unlinked (never their targets), and a folder swapped for a link mid-way is refused.
 * @returns false when there was no such entry.
 */
export async function removeTreeNoFollow(parent: VerifiedDirectory, name: string): Promise<boolean> {
  let folder: VerifiedDirectory;
  try {
    folder = await openVerifiedDirectory(parent.at(name), [], {
      create: false,
      checkInside: (realPath) => {
        if (realPath !== path.join(parent.realPath, name)) throw new LinkOnTheWay(name);
      },
    });
  } catch (error) {
    if (hasErrorCode(error, "ENOENT")) return false;
    if (hasErrorCode(error, "ELOOP") || hasErrorCode(error, "ENOTDIR")) throw new LinkOnTheWay(name);
    throw error;
  }
  try {
    for (const entry of await readdir(folder.at("."))) {
      const stats = await lstat(folder.at(entry)).catch(() => undefined);
      if (stats === undefined) continue;
      if (stats.isDirectory()) await removeTreeNoFollow(folder, entry);
      else
        await unlink(folder.at(entry)).catch((error: unknown) => {
          if (!hasErrorCode(error, "ENOENT")) throw error;
        });
    }
  } finally {
    await folder.close();
  }
  await rmdir(parent.at(name));
  return true;
}
