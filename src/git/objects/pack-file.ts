import { basename } from "node:path";
import { CatalogError } from "../../errors/catalog-error.js";
import type { LruCache } from "../lru-cache.js";
import { applyDelta, deltaTargetSize } from "./apply-delta.js";
import type { FilePool } from "./file-pool.js";
import type { GitObject, GitObjectType } from "./git-object.js";
import type { Inflater } from "./inflater.js";
import { checkClaimedSize, corruptObject, MAX_CHAIN_BYTES, MAX_OBJECT_BYTES } from "./object-limits.js";
import type { PackIndex, PackIndexFile } from "./pack-index.js";

const BASE_TYPES: readonly (GitObjectType | undefined)[] = [undefined, "commit", "tree", "blob", "tag"];
const OFS_DELTA = 6;
const REF_DELTA = 7;
const HEADER_BYTES = 32;
/** Compressed bytes inflated to read a delta's two sizes (a dynamic Huffman block's tables take up to ~290 bytes). */
const DELTA_HEAD_INPUT = 1024;
/** The pack header (`PACK`, version, count): no entry starts before it. */
const PACK_HEADER_BYTES = 12;
/** The pack's checksum: no entry starts in it. */
const TRAILER_BYTES = 20;
/**
 * Packs are read in windows of this size on first use (like git's `core.packedGitWindowSize`):
 * a question about recent history reads the few windows it needs, not the whole pack.
 */
const WINDOW_BYTES = 256 * 1024;
/**
 * Bytes of windows a pack keeps (32 windows). Walks read a pack nearly in order (newest objects
 * first), so a small set of windows serves them; the buffer of the least recently used window is
 * reused for the next one. Keeping every window read (a copy of the whole pack) cost a first call
 * more in fresh memory than the reads themselves: on a VM, each new page of anonymous memory is a
 * fault the host serves (reading the bench's 23 MB pack into new buffers took 170-290 ms; into
 * reused ones, 16-31 ms), while a pack's bytes stay in the page cache between reads.
 */
const KEPT_BYTES = 8 * 1024 * 1024;

/**
 * How many {@link PackFile.readChain} calls are running, one inside the other (a ref delta's base in
 * another pack is read nested), and the bytes their links have built: module state, as reads are
 * synchronous and a nested read runs inside its caller's. See {@link MAX_CHAIN_BYTES}.
 */
let chainDepth = 0;
let chainBytes = 0;
/**
 * The outermost chain read's {@link ChainScratch}, shared with the reads nested in it: a nested
 * read ends before its caller builds a link (it is how the caller finds its base), so one pair of
 * buffers serves them all, paged in once (a chain split over four packs paged in four pairs).
 */
let chainScratch: ChainScratch | undefined;

/** Counts a link of `bytes` against {@link MAX_CHAIN_BYTES} before it is built. */
function spendOnChain(bytes: number, offset: number, pack: string): void {
  // One object past MAX_OBJECT_BYTES is applyDelta's to refuse, naming the size it claims.
  if (bytes > MAX_OBJECT_BYTES) return;
  chainBytes += bytes;
  if (chainBytes > MAX_CHAIN_BYTES) {
    throw new CatalogError(
      "too_large",
      `The delta chain of the object at ${offset} in pack ${pack} builds more than ${MAX_CHAIN_BYTES} bytes; the git tools build at most that much for one object.`,
    );
  }
}

/**
 * Whole objects up to this size are inflated into a pack's reused scratch by
 * {@link PackFile.readTransientAt} (larger ones get memory of their own, as {@link PackFile.readAt}
 * gives them): the scratch, at most twice this, is the memory that path keeps per pack.
 */
const TRANSIENT_MAX_BYTES = 256 * 1024;

/** How a pack is read. */
export interface PackReadOptions {
  /** Window size. @defaultValue 256 KiB */
  readonly windowBytes?: number;
  /** Bytes of windows kept (at least one window); older windows' buffers are reused. @defaultValue 8 MiB */
  readonly keptBytes?: number;
}

/** One entry's header. Every field is always present: one object shape for every entry keeps the reads of it monomorphic. */
interface PackEntry {
  readonly kind: number;
  readonly size: number;
  readonly dataStart: number;
  readonly baseOffset: number | undefined;
  readonly baseOid: string | undefined;
}

/** One window of a pack: its bytes (a view of a buffer of the full window size) and when it was last used. */
interface PackWindow {
  readonly index: number;
  readonly bytes: Buffer;
  used: number;
}

/** The weight of a resolved delta base of `size` bytes in a pack's base cache (its content and the object around it). */
export function baseWeight(size: number): number {
  return size + 64;
}

/**
 * Two buffers one delta chain's links (and those of the chains read nested in it) are built in, alternately (a link reads its base from one
 * and writes the other), when the base cache would not keep them: only the chain's last link is
 * returned, and the others are dropped as soon as the next is built. A fresh buffer per link paged
 * its memory in anew each time: on a VM a new page is a fault the host serves (~20 us), so a
 * 64 MiB link cost ~0.3 s of system time before a byte was copied. Each buffer is sized to the
 * largest link it has held, never to a bound up front, and both go with the chain's read.
 */
class ChainScratch {
  private readonly buffers: [Buffer | undefined, Buffer | undefined] = [undefined, undefined];
  /** Buffers allocated, for {@link PackFile.chainBuffers}. */
  allocated = 0;
  /** Which buffer holds the current base (-1: none, the base has memory of its own). */
  private holding = -1;

  /** At least `size` bytes of the buffer that does not hold the base; it holds the next base. A property, passed as is. */
  readonly take = (size: number): Buffer => {
    const slot = this.holding === 0 ? 1 : 0;
    let buffer = this.buffers[slot];
    if (buffer === undefined || buffer.length < size) {
      buffer = Buffer.allocUnsafeSlow(size);
      this.buffers[slot] = buffer;
      this.allocated++;
    }
    this.holding = slot;
    return buffer;
  };

  /** `base` has memory of its own: both buffers are free for the links built on it. */
  release<Base>(base: Base): Base {
    this.holding = -1;
    return base;
  }
}

/** A delta on a chain being read: where it is, and its entry. */
interface ChainLink {
  readonly offset: number;
  readonly entry: PackEntry;
}

/** Reads an object by id from wherever the repository keeps it: for ref deltas. */
export type ReadBase = (oid: string) => GitObject;

/**
 * One `.pack` file, inflated with node's native zlib. It is read through 256 KiB windows on first
 * use, so neighbouring objects cost one read, not one each, and a question about recent history
 * reads only the start of the pack; the last 8 MiB of windows are kept and their buffers reused
 * (see {@link KEPT_BYTES}). Delta chains are resolved iteratively, and every object built on the
 * way goes into a shared base cache, as git's own delta base cache does.
 */
export class PackFile {
  /** The `.pack` file, in the store's bounded descriptor pool: it may give its descriptor up between reads. */
  private file: PackIndexFile | undefined;
  private size = 0;
  /** Windows read, by window index. */
  private readonly windows = new Map<number, PackWindow>();
  /** The window used last (most reads fall in the same one). */
  private last: PackWindow | undefined;
  /** Counts window uses, to find the least recently used one when a window must go. */
  private clock = 0;
  /** Windows read (a window read again after it was evicted counts again), for tests. */
  reads = 0;
  /** Window buffers allocated (the rest reused an evicted window's), for tests. */
  windowBuffers = 0;
  /**
   * Buffers allocated for the objects built by delta chains read from this pack (their bases and
   * links, those of chains read nested included), for tests.
   */
  chainBuffers = 0;

  constructor(
    /** The `.pack` path. */
    readonly path: string,
    /** Its index. */
    readonly index: PackIndex,
    /** This pack's resolved delta bases by offset (small integers: the fastest map keys). */
    private readonly bases: LruCache<number, GitObject>,
    private readonly readBase: ReadBase,
    /**
     * Opens the pack (confined under the workspace sandbox) in the store's descriptor pool, shared
     * with the indexes and the commit-graph: hundreds of packs held hundreds of descriptors.
     */
    private readonly files: FilePool,
    /** The zlib handle shared by the packs of one store. */
    private readonly inflater: Inflater,
    private readonly options: PackReadOptions = {},
  ) {}

  private open(): PackIndexFile {
    if (this.file !== undefined) return this.file;
    const file = this.files.openFile(this.path);
    if (file === undefined) throw new CatalogError("missing_object", `Pack ${this.name} disappeared.`);
    this.size = file.size;
    this.file = file;
    return file;
  }

  private window(index: number, windowBytes: number): Buffer {
    const last = this.last;
    if (last !== undefined && last.index === index) return last.bytes;
    const cached = this.windows.get(index);
    if (cached !== undefined) {
      cached.used = ++this.clock;
      this.last = cached;
      return cached.bytes;
    }
    const file = this.open();
    const kept = Math.max(1, Math.floor((this.options.keptBytes ?? KEPT_BYTES) / windowBytes));
    let buffer: Buffer;
    if (this.windows.size >= kept) {
      const oldest = this.leastRecentlyUsed();
      this.windows.delete(oldest.index);
      // Its whole buffer (a window at the end of the pack is a shorter view of one).
      buffer = Buffer.from(oldest.bytes.buffer, oldest.bytes.byteOffset, windowBytes);
    } else {
      buffer = Buffer.allocUnsafeSlow(windowBytes);
      this.windowBuffers++;
    }
    const start = index * windowBytes;
    this.reads++;
    const read = file.read(buffer, 0, Math.min(windowBytes, this.size - start), start);
    const window: PackWindow = { index, bytes: buffer.subarray(0, read), used: ++this.clock };
    this.windows.set(index, window);
    this.last = window;
    return window.bytes;
  }

  private leastRecentlyUsed(): PackWindow {
    let oldest: PackWindow | undefined;
    for (const window of this.windows.values()) if (oldest === undefined || window.used < oldest.used) oldest = window;
    return oldest as PackWindow;
  }

  /** Where the bytes {@link span} returned start in its buffer. */
  private spanStart = 0;
  /** Inflated delta data, reused: a delta is applied as soon as it is inflated. */
  private deltaScratch = Buffer.allocUnsafe(0);
  /** Whole objects inflated by {@link readTransientAt}, reused (at most twice {@link TRANSIENT_MAX_BYTES}). */
  private transientScratch = Buffer.allocUnsafe(0);
  /** A delta's first bytes: its two sizes, at most 10 bytes each. */
  private readonly sizeScratch = Buffer.allocUnsafe(20);

  /**
   * `length` bytes at `position` (fewer at the end of the file), without a view: the window
   * they lie in, from {@link spanStart} on, or a new buffer from 0 when they cross windows.
   * Valid until the next read of this pack (a window's buffer is reused).
   */
  private span(position: number, length: number): Buffer {
    const file = this.open();
    const end = Math.min(position + length, this.size);
    const windowBytes = this.options.windowBytes ?? WINDOW_BYTES;
    const index = Math.floor(position / windowBytes);
    if (Math.floor((end - 1) / windowBytes) === index) {
      const window = this.window(index, windowBytes);
      this.spanStart = position - index * windowBytes;
      return window;
    }
    // Across windows (a large object): read on its own, not kept.
    this.spanStart = 0;
    const target = Buffer.allocUnsafe(Math.max(0, end - position));
    const read = file.read(target, 0, target.length, position);
    return target.subarray(0, read);
  }

  /** Releases the pack's memory or descriptor; a later read loads it again. */
  close(): void {
    this.file?.close();
    this.file = undefined;
    this.bases.clear();
    this.windows.clear();
    this.last = undefined;
    this.index.close();
  }

  /** The pack's file name, for errors (never the host path); found once, not per delta link (a walk builds tens of thousands). */
  private packName: string | undefined;

  /** The pack's file name, for errors (never the host path). */
  private get name(): string {
    this.packName ??= basename(this.path);
    return this.packName;
  }

  /** The data offset of the entry being inflated, for {@link describeEntry}. */
  private describing = 0;
  /** Names that entry in an error, made only when one is thrown (one text per object read cost more than the check). */
  private readonly describeEntry = (): string => `The entry at ${this.describing} in pack ${this.name}`;

  private entryAt(offset: number): PackEntry {
    // An offset comes from the index or a delta: either can point anywhere, including past the end.
    this.open();
    if (!Number.isSafeInteger(offset) || offset < PACK_HEADER_BYTES || offset >= this.size - TRAILER_BYTES) {
      throw corruptObject(`an entry offset (${offset}) lies outside pack ${this.name}.`);
    }
    // Read in place (the window it lies in): no view allocated per object.
    const header = this.span(offset, HEADER_BYTES);
    const start = this.spanStart;
    const read = Math.min(HEADER_BYTES, header.length - start);
    let position = start;
    let byte = header[position++] ?? 0;
    const kind = (byte >> 4) & 7;
    let size = byte & 15;
    // 2 ** shift kept as a running product: `**` with a variable exponent is a call to the C
    // library's pow per byte, in optimized code too (the same exact powers of two).
    let scale = 16;
    while (byte & 0x80) {
      byte = header[position++] ?? 0;
      size += (byte & 0x7f) * scale;
      scale *= 128;
    }
    if (kind === OFS_DELTA) {
      byte = header[position++] ?? 0;
      let distance = byte & 0x7f;
      while (byte & 0x80) {
        byte = header[position++] ?? 0;
        distance = (distance + 1) * 128 + (byte & 0x7f);
      }
      // A base lies strictly before its delta (git writes it so, and reads it so): a distance of
      // 0 made this entry its own base, and the chain below looped for ever, growing until the heap ran out.
      if (distance <= 0 || offset - distance < PACK_HEADER_BYTES) {
        throw corruptObject(
          `the delta at ${offset} in pack ${this.name} names a base at distance ${distance}, which is not before it.`,
        );
      }
      return { kind, size, dataStart: offset + position - start, baseOffset: offset - distance, baseOid: undefined };
    }
    if (kind === REF_DELTA) {
      const baseOid = header.toString("hex", position, position + 20);
      return { kind, size, dataStart: offset + position - start + 20, baseOffset: undefined, baseOid };
    }
    if (position - start > read) throw corruptObject(`a truncated entry at ${offset} in pack ${this.name}.`);
    return { kind, size, dataStart: offset + position - start, baseOffset: undefined, baseOid: undefined };
  }

  private inflate(entry: PackEntry, scratch?: ChainScratch): Buffer {
    this.checkSize(entry);
    // Its own memory, as a delta's result (see applyDelta): the caches weigh what they keep.
    const output = scratch === undefined ? Buffer.allocUnsafeSlow(entry.size + 1) : scratch.take(entry.size + 1);
    return this.inflateEntry(entry, output).subarray(0, entry.size);
  }

  /** Refuses a size header that lies (or asks for more than the tools read) before its buffer is allocated. */
  private checkSize(entry: PackEntry): void {
    this.describing = entry.dataStart;
    checkClaimedSize(this.describeEntry, entry.size, this.size - TRAILER_BYTES - entry.dataStart);
  }

  /** Inflates `entry` into the start of `output` (at least its size + 1 bytes). */
  private inflateEntry(entry: PackEntry, output: Buffer): Buffer {
    // The compressed length is not stored; deflate never grows data by more than this bound.
    const bound = entry.size + 5 * (Math.ceil(entry.size / 16_000) + 1) + 64;
    const length = Math.max(0, Math.min(bound, this.size - 20 - entry.dataStart));
    const input = this.span(entry.dataStart, length);
    const start = this.spanStart;
    const available = Math.min(length, input.length - start);
    this.describing = entry.dataStart;
    this.inflater.inflateInto(input, start, available, output, entry.size, this.describeEntry);
    return output;
  }

  /** A delta's instructions, inflated into reused scratch (valid until the next delta). */
  private inflateDelta(entry: PackEntry): Buffer {
    this.checkSize(entry);
    if (this.deltaScratch.length < entry.size + 1) this.deltaScratch = Buffer.allocUnsafe(Math.max(4096, 2 * (entry.size + 1)));
    return this.inflateEntry(entry, this.deltaScratch);
  }

  /**
   * The object that starts at `offset`, with its delta chain applied. The chain is followed in a
   * loop, however deep (git's own packs allow 4095 links; a hostile one any number): an ofs
   * delta's base lies strictly before it, and a ref delta's base is looked up in this pack first,
   * as git does, with the offsets seen checked once a ref delta appears, so a chain of deltas
   * naming each other is refused, not followed for ever. Only a base in another pack or loose
   * is read through the store (nested, with its depth bounded there).
   */
  readAt(offset: number): GitObject {
    const cached = this.bases.get(offset);
    if (cached !== undefined) return cached;
    // The common cases of a walk, with nothing allocated but the object: a whole object, or an
    // offset delta whose base was built just before (an older version of a file or directory).
    const entry = this.entryAt(offset);
    const type = BASE_TYPES[entry.kind];
    if (type !== undefined) return { type, content: this.inflate(entry) };
    const base = entry.baseOffset === undefined ? undefined : this.bases.get(entry.baseOffset);
    if (base === undefined) return this.readChain(offset);
    const delta = this.inflateDelta(entry);
    // One link alone is bounded by applyDelta; inside a chain (a nested base read) it counts there.
    if (chainDepth > 0) spendOnChain(deltaTargetSize(delta, entry.size), offset, this.name);
    const object = { type: base.type, content: applyDelta(base.content, delta, entry.size) };
    this.bases.set(offset, object);
    return object;
  }

  /**
   * {@link readAt} for a caller done with the content before this pack's next read (see
   * `ObjectStore.readTransientRawSync`): a whole object of at most {@link TRANSIENT_MAX_BYTES} is
   * inflated into reused scratch, not into a buffer of its own (an `ArrayBuffer` per commit was
   * a tenth of a whole-history message search, with the collections it brought). A delta, or a
   * larger object, is read as {@link readAt} reads it.
   */
  readTransientAt(offset: number): GitObject {
    const cached = this.bases.get(offset);
    if (cached !== undefined) return cached;
    const entry = this.entryAt(offset);
    const type = BASE_TYPES[entry.kind];
    if (type === undefined || entry.size > TRANSIENT_MAX_BYTES) return this.readAt(offset);
    this.checkSize(entry);
    if (this.transientScratch.length < entry.size + 1) {
      this.transientScratch = Buffer.allocUnsafeSlow(Math.max(4096, Math.min(2 * TRANSIENT_MAX_BYTES, 2 * (entry.size + 1))));
    }
    return { type, content: this.inflateEntry(entry, this.transientScratch).subarray(0, entry.size) };
  }

  /**
   * The size of the object at `offset` without inflating it: a whole object's entry header says
   * it; a delta's result size is the second number of its instructions, which are inflated from a
   * bounded prefix (git's `get_size_from_delta`).
   */
  sizeAt(offset: number): number {
    const cached = this.bases.get(offset);
    if (cached !== undefined) return cached.content.length;
    const entry = this.entryAt(offset);
    if (BASE_TYPES[entry.kind] !== undefined) {
      this.checkSize(entry);
      return entry.size;
    }
    const length = Math.max(0, Math.min(DELTA_HEAD_INPUT, this.size - TRAILER_BYTES - entry.dataStart));
    const input = this.span(entry.dataStart, length);
    const start = this.spanStart;
    this.describing = entry.dataStart;
    const written = this.inflater.inflatePrefix(
      input,
      start,
      Math.min(length, input.length - start),
      this.sizeScratch,
      this.describeEntry,
    );
    const head = this.sizeScratch.subarray(0, written);
    let position = 0;
    let size = 0;
    for (let pass = 0; pass < 2; pass++) {
      size = 0;
      let shift = 0;
      let scale = 1;
      let byte = 0x80;
      while (byte & 0x80) {
        if (position >= head.length || shift > 49)
          throw corruptObject(`the delta at ${offset} in pack ${this.name} has no valid header.`);
        byte = head[position++] as number;
        size += (byte & 0x7f) * scale;
        scale *= 128;
        shift += 7;
      }
    }
    return size;
  }

  /** {@link readAt} of a delta whose base is not at hand: the chain down to a base, then back up. */
  private readChain(offset: number): GitObject {
    if (chainDepth++ === 0) {
      chainBytes = 0;
      chainScratch = new ChainScratch();
    }
    try {
      return this.buildChain(offset, chainScratch as ChainScratch);
    } finally {
      // The buffers go with the outermost read: a pack keeps no memory sized by its largest chain.
      if (--chainDepth === 0) chainScratch = undefined;
    }
  }

  /** {@link readChain}'s work, every link counted against {@link MAX_CHAIN_BYTES} before it is built. */
  private buildChain(offset: number, scratch: ChainScratch): GitObject {
    const chain: ChainLink[] = [];
    const allocated = scratch.allocated;
    let base = this.chainBase(offset, chain, scratch);
    for (let link = chain.length - 1; link >= 0; link--) {
      // The chain's last link is returned: memory of its own.
      base = this.applyLink(chain[link] as ChainLink, base, offset, link > 0 ? scratch : undefined);
    }
    this.chainBuffers += scratch.allocated - allocated;
    return base;
  }

  /** The base a chain starts from, walking down from `offset`; the links on the way go to `chain`, top first. */
  private chainBase(offset: number, chain: ChainLink[], scratch: ChainScratch): GitObject {
    let at = offset;
    /** Offsets on the chain, kept once a ref delta appears (an ofs delta alone can only go back). */
    let seen: Set<number> | undefined;
    for (;;) {
      const cached = this.bases.get(at);
      if (cached !== undefined) return scratch.release(cached);
      const entry = this.entryAt(at);
      const type = BASE_TYPES[entry.kind];
      if (type !== undefined) {
        // Only a base for the links above, and too large to cache: built in reused memory.
        if (chain.length > 0 && !this.bases.keeps(baseWeight(entry.size))) return { type, content: this.inflate(entry, scratch) };
        this.chainBuffers++;
        const base = { type, content: this.inflate(entry) };
        if (chain.length === 0) return base;
        this.bases.set(at, base);
        return base;
      }
      if (entry.baseOffset === undefined && entry.baseOid === undefined) {
        throw corruptObject(`an unknown entry type ${entry.kind} at ${at} in pack ${this.name}.`);
      }
      chain.push({ offset: at, entry });
      const next = entry.baseOffset ?? this.index.offsetOf(Buffer.from(entry.baseOid as string, "hex"));
      // A nested read may have built its links in the shared scratch: the base it returns is its own.
      if (next === undefined) return scratch.release(this.readBase(entry.baseOid as string));
      if (entry.baseOid !== undefined) seen ??= new Set(chain.map((link) => link.offset));
      if (seen?.has(next)) throw corruptObject(`the delta chain at ${offset} in pack ${this.name} is a cycle.`);
      seen?.add(next);
      at = next;
    }
  }

  /**
   * One link of the chain read at `offset` built on `base`: into `scratch` when given and the base
   * cache would not keep the result (it is only the next link's base), else into memory of its own,
   * cached. applyDelta refuses a link past the object bound before it asks for memory.
   */
  private applyLink(link: ChainLink, base: GitObject, offset: number, scratch: ChainScratch | undefined): GitObject {
    const delta = this.inflateDelta(link.entry);
    const size = deltaTargetSize(delta, link.entry.size);
    spendOnChain(size, offset, this.name);
    if (scratch !== undefined && !this.bases.keeps(baseWeight(size))) {
      return { type: base.type, content: applyDelta(base.content, delta, link.entry.size, scratch.take) };
    }
    scratch?.release(undefined);
    this.chainBuffers++;
    const object = { type: base.type, content: applyDelta(base.content, delta, link.entry.size) };
    this.bases.set(link.offset, object);
    return object;
  }
}
