import { closeSync, fstatSync, readSync } from "node:fs";
import { CatalogError } from "agent-tool-catalog";
import type { GitFileReader } from "../git-file-reader.js";
import type { LruCache } from "../lru-cache.js";
import { applyDelta } from "./apply-delta.js";
import type { GitObject, GitObjectType } from "./git-object.js";
import type { Inflater } from "./inflater.js";
import type { PackIndex } from "./pack-index.js";

const BASE_TYPES: readonly (GitObjectType | undefined)[] = [undefined, "commit", "tree", "blob", "tag"];
const OFS_DELTA = 6;
const REF_DELTA = 7;
const HEADER_BYTES = 32;
/** Packs up to this size are kept in memory once read (as git maps packs); larger ones keep only recent windows. */
export const WHOLE_PACK_BYTES = 256 * 1024 * 1024;
/**
 * Packs are read in windows of this size (like git's `core.packedGitWindowSize`), on first use:
 * a question about recent history reads the few windows it needs, not the whole pack.
 */
const WINDOW_BYTES = 1024 * 1024;
/** Of a pack larger than {@link WHOLE_PACK_BYTES}, this many windows are kept (64 MiB), least recently used first out. */
const WINDOWS_KEPT = 64;

/** How a pack is read. */
export interface PackReadOptions {
  /** Packs up to this size keep every window read. @defaultValue 256 MiB */
  readonly wholePackBytes?: number;
  /** Window size. @defaultValue 1 MiB */
  readonly windowBytes?: number;
}

interface PackEntry {
  readonly kind: number;
  readonly size: number;
  readonly dataStart: number;
  readonly baseOffset?: number;
  readonly baseOid?: string;
}

/** Reads an object by id from wherever the repository keeps it: for ref deltas. */
export type ReadBase = (oid: string) => GitObject;

/**
 * One `.pack` file, inflated with node's native zlib. It is read through 1 MiB windows on first
 * use, so neighbouring objects cost one read, not one each, and a question about recent history
 * reads only the start of the pack; a pack up to 256 MiB keeps every window it read, a larger one
 * the last 64 (64 MiB). Delta chains are resolved iteratively, and every object built on
 * the way goes into a shared base cache, as git's own delta base cache does.
 */
export class PackFile {
  private descriptor: number | undefined;
  /** Whether every window read is kept (a pack up to {@link WHOLE_PACK_BYTES}). */
  private keepAll = false;
  private size = 0;
  /** For a large pack: recently read windows by index (a Map keeps insertion order: oldest first). */
  private readonly windows = new Map<number, Buffer>();
  /** Positioned reads made (windows and reads too large for one), for tests and the bench. */
  reads = 0;

  constructor(
    /** The `.pack` path. */
    readonly path: string,
    /** Its index. */
    readonly index: PackIndex,
    /** This pack's resolved delta bases by offset (small integers: the fastest map keys). */
    private readonly bases: LruCache<number, GitObject>,
    private readonly readBase: ReadBase,
    /** Opens the pack (confined under the workspace sandbox). */
    private readonly reader: GitFileReader,
    /** The zlib handle shared by the packs of one store. */
    private readonly inflater: Inflater,
    private readonly options: PackReadOptions = {},
  ) {}

  private window(index: number, windowBytes: number): Buffer {
    const cached = this.windows.get(index);
    if (cached !== undefined) {
      if (!this.keepAll) {
        this.windows.delete(index);
        this.windows.set(index, cached);
      }
      return cached;
    }
    const start = index * windowBytes;
    const buffer = Buffer.allocUnsafe(Math.min(windowBytes, this.size - start));
    this.reads++;
    const read = readSync(this.descriptor as number, buffer, 0, buffer.length, start);
    const window = buffer.subarray(0, read);
    this.windows.set(index, window);
    if (!this.keepAll && this.windows.size > WINDOWS_KEPT) this.windows.delete(this.windows.keys().next().value as number);
    return window;
  }

  /** Where the bytes {@link span} returned start in its buffer. */
  private spanStart = 0;
  /** Inflated delta data, reused: a delta is applied as soon as it is inflated. */
  private deltaScratch = Buffer.allocUnsafe(0);

  /**
   * `length` bytes at `position` (fewer at the end of the file), without a view: the window
   * they lie in, from {@link spanStart} on, or a new buffer from 0 when they cross windows.
   */
  private span(position: number, length: number): Buffer {
    const end = Math.min(position + length, this.size);
    const windowBytes = this.options.windowBytes ?? WINDOW_BYTES;
    const index = Math.floor(position / windowBytes);
    if (this.descriptor !== undefined && Math.floor((end - 1) / windowBytes) === index) {
      const window = this.window(index, windowBytes);
      this.spanStart = position - index * windowBytes;
      return window;
    }
    this.spanStart = 0;
    return this.bytes(position, length);
  }

  /** `length` bytes at `position` (fewer at the end of the file); a view of a window when it lies inside one. */
  private bytes(position: number, length: number, scratch?: Buffer): Buffer {
    if (this.descriptor === undefined) {
      const descriptor = this.reader.open(this.path);
      if (descriptor === undefined) throw new CatalogError("missing_object", `Pack ${this.path} disappeared.`);
      this.size = fstatSync(descriptor).size;
      this.keepAll = this.size <= (this.options.wholePackBytes ?? WHOLE_PACK_BYTES);
      this.descriptor = descriptor;
    }
    const end = Math.min(position + length, this.size);
    // Most objects lie inside one window: served from memory, one read per window, not per object.
    const windowBytes = this.options.windowBytes ?? WINDOW_BYTES;
    const index = Math.floor(position / windowBytes);
    if (Math.floor((end - 1) / windowBytes) === index) {
      const window = this.window(index, windowBytes);
      return window.subarray(position - index * windowBytes, end - index * windowBytes);
    }
    const target = scratch !== undefined && scratch.length >= end - position ? scratch : Buffer.allocUnsafe(end - position);
    this.reads++;
    const read = readSync(this.descriptor as number, target, 0, end - position, position);
    return target.subarray(0, read);
  }

  /** Releases the pack's memory or descriptor; a later read loads it again. */
  close(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
    this.bases.clear();
    this.windows.clear();
  }

  private entryAt(offset: number): PackEntry {
    // Read in place (the window it lies in): no view allocated per object.
    const header = this.span(offset, HEADER_BYTES);
    const start = this.spanStart;
    const read = Math.min(HEADER_BYTES, header.length - start);
    let position = start;
    let byte = header[position++] ?? 0;
    const kind = (byte >> 4) & 7;
    let size = byte & 15;
    let shift = 4;
    while (byte & 0x80) {
      byte = header[position++] ?? 0;
      size += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    }
    if (kind === OFS_DELTA) {
      byte = header[position++] ?? 0;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = header[position++] ?? 0;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      return { kind, size, dataStart: offset + position - start, baseOffset: offset - distance };
    }
    if (kind === REF_DELTA) {
      const baseOid = header.toString("hex", position, position + 20);
      return { kind, size, dataStart: offset + position - start + 20, baseOid };
    }
    if (position - start > read) throw new CatalogError("corrupt_object", `Truncated pack entry in ${this.path}.`);
    return { kind, size, dataStart: offset + position - start };
  }

  private inflate(entry: PackEntry): Buffer {
    return this.inflateEntry(entry, Buffer.allocUnsafe(entry.size + 1)).subarray(0, entry.size);
  }

  /** Inflates `entry` into the start of `output` (at least its size + 1 bytes). */
  private inflateEntry(entry: PackEntry, output: Buffer): Buffer {
    // The compressed length is not stored; deflate never grows data by more than this bound.
    const bound = entry.size + 5 * (Math.ceil(entry.size / 16_000) + 1) + 64;
    const length = Math.max(0, Math.min(bound, this.size - 20 - entry.dataStart));
    const input = this.span(entry.dataStart, length);
    const start = this.spanStart;
    const available = Math.min(length, input.length - start);
    this.inflater.inflateInto(input, start, available, output, entry.size, `Pack entry at ${entry.dataStart} in ${this.path}`);
    return output;
  }

  /** A delta's instructions, inflated into reused scratch (valid until the next delta). */
  private inflateDelta(entry: PackEntry): Buffer {
    if (this.deltaScratch.length < entry.size + 1) this.deltaScratch = Buffer.allocUnsafe(Math.max(4096, 2 * (entry.size + 1)));
    return this.inflateEntry(entry, this.deltaScratch);
  }

  /** The object that starts at `offset`, with its delta chain applied. */
  readAt(offset: number): GitObject {
    const chain: { readonly offset: number; readonly entry: PackEntry }[] = [];
    let base: GitObject | undefined;
    let at = offset;
    while (base === undefined) {
      const cached = this.bases.get(at);
      if (cached !== undefined) {
        base = cached;
        break;
      }
      const entry = this.entryAt(at);
      const type = BASE_TYPES[entry.kind];
      if (type !== undefined) {
        base = { type, content: this.inflate(entry) };
        if (chain.length > 0) this.bases.set(at, base);
      } else if (entry.baseOffset !== undefined) {
        chain.push({ offset: at, entry });
        at = entry.baseOffset;
      } else if (entry.baseOid !== undefined) {
        chain.push({ offset: at, entry });
        base = this.readBase(entry.baseOid);
      } else {
        throw new CatalogError("corrupt_object", `Unknown pack entry type ${entry.kind} in ${this.path}.`);
      }
    }
    for (let link = chain.length - 1; link >= 0; link--) {
      const { offset: linkOffset, entry } = chain[link] as (typeof chain)[number];
      base = { type: base.type, content: applyDelta(base.content, this.inflateDelta(entry), entry.size) };
      this.bases.set(linkOffset, base);
    }
    return base;
  }
}
