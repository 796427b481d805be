import { constants, Inflate, inflateSync } from "node:zlib";
import { CatalogError } from "../../errors/catalog-error.js";
import { describe, type ObjectDescription } from "./object-limits.js";

/** The native zlib handle under a node `Inflate` stream (node's own sync calls use the same two methods). */
interface NativeInflate {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
  reset(): void;
}

interface StreamInternals {
  readonly _handle?: NativeInflate | null;
  /** `[output bytes left, input bytes left]` after the last write. */
  readonly _writeState?: Uint32Array;
}

function corrupt(what: ObjectDescription): CatalogError {
  return new CatalogError("corrupt_object", `${describe(what)} does not inflate to its recorded size.`);
}

/**
 * Inflates zlib streams of known size with one native zlib handle, reset between objects.
 * `zlib.inflateSync` creates and tears down a handle (and a stream object) per call, which on a
 * history walk of small commits and trees costs more than the inflating itself. The handle is
 * node's internal one; when a node version does not expose it, every call falls back to
 * `inflateSync`, which gives the same bytes.
 */
export class Inflater {
  private stream: (Inflate & StreamInternals) | undefined;
  private handle: NativeInflate | undefined;
  private state: Uint32Array | undefined;
  private native = true;

  private open(): boolean {
    if (this.handle !== undefined) return true;
    if (!this.native) return false;
    const stream = new Inflate() as Inflate & StreamInternals;
    // A data error destroys the stream and emits "error" later; that is handled here, synchronously.
    stream.on("error", () => {});
    const handle = stream._handle;
    const state = stream._writeState;
    if (handle === null || handle === undefined || typeof handle.writeSync !== "function" || !(state instanceof Uint32Array)) {
      this.native = false;
      stream.close();
      return false;
    }
    [this.stream, this.handle, this.state] = [stream, handle, state];
    return true;
  }

  private discard(): void {
    this.stream?.close();
    [this.stream, this.handle, this.state] = [undefined, undefined, undefined];
  }

  /**
   * The `size` bytes `input` inflates to (`input` may run past the end of the stream, as a pack
   * slice does). `what` names the object in the error.
   * @throws CatalogError `corrupt_object` when the data is not zlib or its size is not `size`
   */
  inflate(input: Uint8Array, size: number, what: string): Buffer {
    // One spare byte: a stream longer than recorded fills it, one of the right size leaves it free.
    // Its own memory, not a slice of node's shared pool: the object may be cached (see applyDelta).
    const output = Buffer.allocUnsafeSlow(size + 1);
    if (!this.open()) return this.fallback(input, size, what);
    this.inflateInto(input, 0, input.length, output, size, what);
    return output.subarray(0, size);
  }

  /**
   * {@link inflate} of the `length` bytes at `offset` in `input` into the start of `output`
   * (at least `size + 1` bytes: a stream longer than recorded fills the spare byte), without a
   * view or buffer allocated: a pack window is read in place, a delta goes to reused scratch.
   * @throws CatalogError `corrupt_object` as {@link inflate}
   */
  inflateInto(input: Uint8Array, offset: number, length: number, output: Buffer, size: number, what: ObjectDescription): void {
    if (!this.open()) {
      this.fallback(input.subarray(offset, offset + length), size, what).copy(output);
      return;
    }
    const left = this.writeAndReset(constants.Z_FINISH, input, offset, length, output, size + 1, what);
    if (left !== 1) throw corrupt(what);
  }

  /**
   * The first bytes `length` bytes of a zlib stream at `offset` in `input` inflate to, at most
   * `output.length` (the rest of the stream is neither read nor checked): a delta's sizes without
   * its instructions. Returns how many bytes were written to `output`.
   * @throws CatalogError `corrupt_object` when the data is not zlib
   */
  inflatePrefix(input: Uint8Array, offset: number, length: number, output: Buffer, what: ObjectDescription): number {
    if (!this.open()) {
      let head: Buffer;
      try {
        head = inflateSync(input.subarray(offset, offset + length), { finishFlush: constants.Z_SYNC_FLUSH });
      } catch {
        throw corrupt(what);
      }
      return head.copy(output, 0, 0, Math.min(head.length, output.length));
    }
    return output.length - this.writeAndReset(constants.Z_SYNC_FLUSH, input, offset, length, output, output.length, what);
  }

  /**
   * One synchronous write of the open handle into `output` (at most `outputLength` bytes), then a
   * reset for the next object; returns how many output bytes were left unused. A handle that
   * failed or was destroyed is discarded (the next object opens a new one).
   * @throws CatalogError `corrupt_object` when zlib refuses the data
   */
  private writeAndReset(
    flush: number,
    input: Uint8Array,
    offset: number,
    length: number,
    output: Buffer,
    outputLength: number,
    what: ObjectDescription,
  ): number {
    const [stream, handle, state] = [this.stream, this.handle, this.state] as [Inflate, NativeInflate, Uint32Array];
    try {
      handle.writeSync(flush, input, offset, length, output, 0, outputLength);
    } catch {
      this.discard();
      throw corrupt(what);
    }
    if (stream.destroyed) {
      this.discard();
      throw corrupt(what);
    }
    const left = state[0] as number;
    handle.reset();
    return left;
  }

  private fallback(input: Uint8Array, size: number, what: ObjectDescription): Buffer {
    let content: Buffer;
    try {
      content = inflateSync(input, { chunkSize: Math.max(64, size + 1) });
    } catch {
      throw corrupt(what);
    }
    if (content.length !== size) throw corrupt(what);
    return content;
  }

  /** Releases the native handle. */
  close(): void {
    this.discard();
  }
}
