import type { FileHandle } from "node:fs/promises";

/**
 * Runs `use` on `handle`, then closes it, whatever `use` did. Throws the first failure: `use`'s
 * own error is not hidden by a close that fails after it, and a close that fails after `use`
 * succeeded fails the whole (see `writeNewFile`: the content is then not known to be on disk).
 */
export async function useThenClose<T>(handle: FileHandle, use: (handle: FileHandle) => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await use(handle);
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close();
  return result;
}
