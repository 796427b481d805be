import { lstat, mkdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { ownershipProblem } from "../sandbox/ownership.js";

const checked = new Map<string, Promise<void>>();

/**
 * Makes `directory` (mode 0700) and every missing parent up to `base`, then checks that `base`
 * and `directory` are real directories owned by this user that nobody else can write. The default
 * state directory is in the shared temporary directory, where another local user could make it
 * first (or make it a link) and so plant lock files or intent logs that this process would obey.
 * Checked once per directory and process.
 */
export function ensurePrivateDirectory(base: string, directory: string): Promise<void> {
  let done = checked.get(directory);
  if (done === undefined) {
    done = makeAndCheck(base, directory);
    // A failure is not cached: the host may fix the directory and try again.
    done.catch(() => checked.delete(directory));
    checked.set(directory, done);
  }
  return done;
}

async function makeAndCheck(base: string, directory: string): Promise<void> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const uid = typeof process.geteuid === "function" ? process.geteuid() : undefined;
  if (uid === undefined) return;
  for (let current = directory; ; current = path.dirname(current)) {
    const stats = await lstat(current);
    // The same ownership rule as a trusted executable's directories, with this user as the owner.
    if (!stats.isDirectory() || ownershipProblem(stats, [uid]) !== undefined) {
      throw new ToolError(
        "state_directory_unsafe",
        "The library's private state directory is not private (another user owns it, others can write it, or it is a link). Nothing was changed.",
        {
          hint: "The host should remove it or set AGENT_TOOL_CATALOG_STATE_DIR and AGENT_TOOL_CATALOG_LOCK_DIR to a directory only this user can write.",
        },
      );
    }
    if (current === base || path.dirname(current) === current) return;
  }
}
