import { type FileHandle, open } from "node:fs/promises";

// No local file system here reports an error from close(2): NFS and FUSE do, when a write-back
// the write call already reported done fails. This seam gives the same fault: the handle is
// really closed (Linux releases the descriptor even when close fails), then the close rejects
// with EIO. Only handles whose written content matches are hit.

/** A close fault in place; `restore` puts FileHandle back. */
export interface FailingCloses {
  /** How many closes failed so far. */
  readonly failed: number;
  restore(): void;
}

/** Makes `FileHandle.close` fail with EIO, once, after a `writeFile` whose text matches `when`. */
export async function failClosesAfterWrites(when: (text: string) => boolean): Promise<FailingCloses> {
  const probe = await open(import.meta.filename, "r");
  const prototype = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const { writeFile } = prototype;
  const marked = new WeakSet<FileHandle>();
  const state = { failed: 0 };
  prototype.writeFile = function (this: FileHandle, data: unknown, ...rest: unknown[]) {
    if (!marked.has(this) && when(typeof data === "string" ? data : Buffer.from(data as Uint8Array).toString("utf8"))) {
      marked.add(this);
      // Node 20 gives each handle its own `close` (a class field), so it is wrapped per handle.
      const close = this.close.bind(this);
      let failing = true;
      this.close = async () => {
        await close();
        if (!failing) return;
        failing = false;
        state.failed++;
        throw Object.assign(new Error("EIO: i/o error, close"), { code: "EIO", errno: -5, syscall: "close" });
      };
    }
    return (writeFile as (...args: unknown[]) => Promise<void>).call(this, data, ...rest);
  } as FileHandle["writeFile"];
  return {
    get failed() {
      return state.failed;
    },
    restore() {
      prototype.writeFile = writeFile;
    },
  };
}
