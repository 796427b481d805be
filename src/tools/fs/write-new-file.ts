import { open, unlink } from "node:fs/promises";
import { useThenClose } from "./use-then-close.js";

/** How {@link writeNewFile} opens and writes its file. */
export interface WriteNewFileOptions {
  /** Open flags: `"wx"` to fail when the file exists, `O_CREAT | O_TRUNC` to replace one. */
  readonly flags: string | number;
  /** Permission bits of a created file. */
  readonly mode: number;
  /** Flush the content to disk before closing. */
  readonly sync?: boolean;
}

/**
 * Writes `content` to `file`, whole, or leaves no file there. A failure of the write, the flush
 * or the close removes the file and throws the first error. A close can fail after a write that
 * succeeded (a network or FUSE file system reports a lost write-back only then; the descriptor is
 * released all the same): the content is then not known to be on disk, and a file left behind
 * would be a lock held by no one, or a log saying what is not so.
 */
export async function writeNewFile(file: string, content: string, options: WriteNewFileOptions): Promise<void> {
  const handle = await open(file, options.flags, options.mode);
  try {
    await useThenClose(handle, async () => {
      await handle.writeFile(content);
      if (options.sync === true) await handle.sync();
    });
  } catch (error) {
    await unlink(file).catch(() => undefined);
    throw error;
  }
}
