import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { countOf } from "../../errors/count-of.js";
import { type SpecialFileStats, specialFileKind } from "../../errors/special-file-kind.js";
import { hasErrorCode } from "./atomic-file.js";

/**
 * Bytes a host data file (a profile, a skill, a recipe, a prompt extension) may hold. Far above
 * any real one; it keeps a stray multi-gigabyte file from being read whole into memory.
 */
export const MAX_HOST_TEXT_FILE_BYTES = 4 * 1024 * 1024;

/**
 * A host data file that is there but cannot be one: a symbolic link, a FIFO, a directory, a
 * device, or too big.
 * Each store turns it into its own "broken entry" report.
 */
export class UnreadableHostFileError extends Error {
  override readonly name = "UnreadableHostFileError";
}

/** Why a file that is not a regular one is refused, in the file tools' words. */
function refusal(stat: { isDirectory(): boolean } & SpecialFileStats): string {
  if (stat.isDirectory()) return "it is a directory, not a regular file";
  const kind = specialFileKind(stat);
  return kind === undefined ? "it is not a regular file" : `it is a ${kind}, not a regular file`;
}

/**
 * Reads a host data file as UTF-8, or `undefined` when there is none (`ENOENT`, `ENOTDIR`).
 * It is opened non-blocking, without following a symbolic link, and checked to be a regular file
 * before any read: a plain
 * `readFile` of a FIFO waits for a writer forever (and holds a libuv thread meanwhile), and one
 * of a directory rejects with `EISDIR`, which took a whole listing down with it.
 * @throws UnreadableHostFileError for a file that is not a regular file or is over `maxBytes`.
 */
export async function readHostTextFile(file: string, maxBytes = MAX_HOST_TEXT_FILE_BYTES): Promise<string | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return undefined;
    // These directories may live in the workspace (`.<app>/skills`), where a sandboxed command can
    // plant a link to any file of the host: read through it, skill_manage handed the model files
    // its sandbox refuses.
    if (hasErrorCode(error, "ELOOP")) throw new UnreadableHostFileError("it is a symbolic link, which is not followed");
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnreadableHostFileError(refusal(stat));
    if (stat.size > maxBytes) {
      throw new UnreadableHostFileError(`it is ${countOf(stat.size, "byte")}, over the limit of ${countOf(maxBytes, "byte")}`);
    }
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
