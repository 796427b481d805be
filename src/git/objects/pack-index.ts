import { CatalogError } from "../../errors/catalog-error.js";

const V2_MAGIC = 0xff744f63;

/**
 * Orders the id at `at` in `data` against the id at `oidAt` in `oid` (negative: the stored one
 * sorts first), by bytes 4..19: the first four already compared equal. A byte loop:
 * `Buffer.compare` with offsets validates its arguments natively on every call, which costs more
 * than comparing sixteen bytes.
 */
export function compareRest(oid: Uint8Array, oidAt: number, data: Uint8Array, at: number): number {
  for (let index = 4; index < 20; index++) {
    const order = (data[at + index] as number) - (oid[oidAt + index] as number);
    if (order !== 0) return order;
  }
  return 0;
}

/** The first four bytes at `at`, big-endian, as an unsigned number (no bounds checks: callers pass ids). */
export function idHead(bytes: Uint8Array, at: number): number {
  return (
    ((bytes[at] as number) * 0x1000000 +
      (((bytes[at + 1] as number) << 16) | ((bytes[at + 2] as number) << 8) | (bytes[at + 3] as number))) >>>
    0
  );
}

/** Bytes of the index file's header and fan-out table in version 2 (version 1 has no header). */
const V2_HEAD = 8 + 256 * 4;
/** The pack's and the index's checksums at the end of the file. */
const TRAILER = 40;

/**
 * Buckets read one at a time before the rest of the index is read at once: a question that has
 * needed a quarter of the buckets is a walk that will need nearly all of them (ids are uniform
 * hashes), and two reads then replace the ~380 positioned reads (ids, then offsets, per bucket)
 * left. A short question stays under it and reads only its buckets (pages of the index buffer
 * never read are never touched: the memory bound is the file's size, as before).
 */
const BUCKETS_BEFORE_WHOLE = 64;

/**
 * Rows {@link PackIndex.offsetOf} walks one by one from its interpolated guess before it bisects
 * what is left (a bound on the worst case, for ids far from where a uniform spread puts them).
 */
const NEAR_ROWS = 24;

/** A file read on demand (a pack, its index, a commit-graph): positioned reads, and its release. */
export interface PackIndexFile {
  /** Its size in bytes. */
  readonly size: number;
  /** Reads `length` bytes at `position` into `target` at `offset`; returns how many were read. */
  read(target: Buffer, offset: number, length: number, position: number): number;
  /** Closes the file for good: its reader has all it needs, or its store was closed (a later read fails). */
  close(): void;
}

/**
 * Refuses a fan-out table (at `at` in `data`) that is not monotonic: each bucket's bound is read
 * as a row count, and a table that goes down or up past the object count made lookups read rows
 * outside the file (a RangeError, not an answer). Git refuses it too ("non-monotonic index").
 */
function checkFanout(data: Buffer, at: number): void {
  let previous = 0;
  for (let byte = 0; byte < 256; byte++) {
    const bound = data.readUInt32BE(at + byte * 4);
    if (bound < previous) throw new CatalogError("corrupt_object", "A pack index's fan-out table is not monotonic.");
    previous = bound;
  }
}

function corruptIndex(): CatalogError {
  return new CatalogError("corrupt_object", "A pack index is truncated or corrupt.");
}

/**
 * A pack's `.idx` file: the sorted object ids of the pack and their offsets in it. Versions 1
 * and 2 are read; lookups are binary searches inside the 256-way fan-out table.
 *
 * An index opened with {@link PackIndex.open} reads the ids and offsets of one fan-out bucket
 * (ids that share a first byte) the first time a lookup needs it, into a buffer of the file's
 * size that is never written elsewhere: a short question touches a few buckets, not the whole
 * file (3.4 MB for 121,000 objects). On a VM every new page of memory is a fault the host serves
 * (about 10 ms per MB here), which a whole read paid before the first lookup.
 */
export class PackIndex {
  private constructor(
    private readonly data: Buffer,
    /** Objects in the pack. */
    readonly count: number,
    private readonly namesAt: number,
    private readonly nameStride: number,
    private readonly offsetsAt: number,
    private readonly largeOffsetsAt: number,
    /** Where unread buckets come from; `undefined` when the whole file is in {@link data}. */
    private file?: PackIndexFile,
  ) {}

  /** Parses an index file held whole in memory. */
  static parse(data: Buffer): PackIndex {
    if (data.length >= 8 && data.readUInt32BE(0) === V2_MAGIC) {
      if (data.length < V2_HEAD) throw corruptIndex();
      if (data.readUInt32BE(4) !== 2) throw new CatalogError("corrupt_object", "Unsupported pack index version.");
      checkFanout(data, 8);
      const count = data.readUInt32BE(8 + 255 * 4);
      const namesAt = V2_HEAD;
      return new PackIndex(data, count, namesAt, 20, namesAt + count * 24, namesAt + count * 28);
    }
    if (data.length < 256 * 4) throw new CatalogError("corrupt_object", "Pack index too short.");
    checkFanout(data, 0);
    const count = data.readUInt32BE(255 * 4);
    return new PackIndex(data, count, 256 * 4 + 4, 24, -1, -1);
  }

  /**
   * Opens an index file whose buckets are read on first use (see the class comment); reads its
   * header and fan-out table now.
   * @throws CatalogError `corrupt_object` when the file is shorter than its fan-out table says
   */
  static open(file: PackIndexFile): PackIndex {
    // Any index, even of an empty pack, holds a fan-out table and two checksums.
    if (file.size < V2_HEAD + TRAILER) throw corruptIndex();
    // The header first, in its own buffer: the file's buffer is made only once its size is checked.
    const head = Buffer.allocUnsafe(V2_HEAD);
    if (file.read(head, 0, V2_HEAD, 0) !== V2_HEAD) throw corruptIndex();
    const index = PackIndex.parse(head);
    const rows = index.nameStride === 20 ? 28 : 24;
    const tableAt = index.nameStride === 20 ? V2_HEAD : 256 * 4;
    // Git's own check ("wrong index file size"): the rows the count names, plus (version 2) at most
    // one 8-byte large offset per object. A sparse multi-gigabyte file is refused before its buffer is made.
    const least = tableAt + index.count * rows + TRAILER;
    const most = least + (index.nameStride === 20 ? index.count * 8 : 0);
    if (file.size < least || file.size > most) throw corruptIndex();
    const data = Buffer.allocUnsafeSlow(file.size);
    head.copy(data);
    const { count, namesAt, nameStride, offsetsAt, largeOffsetsAt } = index;
    const lazy = new PackIndex(data, count, namesAt, nameStride, offsetsAt, largeOffsetsAt, file);
    lazy.loaded = new Uint8Array(256);
    return lazy;
  }

  /** Per first byte, whether its bucket's ids and offsets were read (`undefined`: all are in memory). */
  private loaded: Uint8Array | undefined;
  /** Buckets read so far; at 256 the file is released. */
  private bucketsRead = 0;
  /** Whether the table of offsets past 2 GiB was read. */
  private largeOffsetsRead = false;

  /** Reads exactly `length` bytes at `position` of the file into the same place of {@link data}. */
  private fill(position: number, length: number): void {
    if (length <= 0) return;
    const file = this.file;
    if (file === undefined || file.read(this.data, position, length, position) !== length) throw corruptIndex();
  }

  /** Reads the ids (and offsets) of the bucket of ids starting with `byte`, if not read yet. */
  private loadBucket(byte: number): void {
    const loaded = this.loaded;
    if (loaded === undefined || loaded[byte] === 1) return;
    const low = this.fanout(byte - 1);
    const rows = this.fanout(byte) - low;
    // Version 1 rows are offset then id (the id at namesAt); version 2 has the ids, then the offsets.
    this.fill(this.namesAt - (this.nameStride - 20) + low * this.nameStride, rows * this.nameStride);
    if (this.offsetsAt >= 0) this.fill(this.offsetsAt + low * 4, rows * 4);
    loaded[byte] = 1;
    if (++this.bucketsRead === BUCKETS_BEFORE_WHOLE) this.loadRest();
    if (this.bucketsRead < 256) return;
    // Every bucket read: the rest of the file (offsets past 2 GiB, usually none) too, and it is released.
    this.loadLargeOffsets();
    this.close();
  }

  /**
   * Reads every bucket not read yet in two reads (all the ids, then all the offsets): see
   * {@link BUCKETS_BEFORE_WHOLE}. The buckets already read get the same bytes again (the file is
   * the one opened: the pool refuses a replaced one), which costs less than a read per run of
   * unread buckets; no lookup is under way while a read is (reads are synchronous).
   */
  private loadRest(): void {
    const count = this.count;
    this.fill(this.namesAt - (this.nameStride - 20), count * this.nameStride);
    if (this.offsetsAt >= 0) this.fill(this.offsetsAt, count * 4);
    (this.loaded as Uint8Array).fill(1);
    this.bucketsRead = 256;
  }

  private loadLargeOffsets(): void {
    if (this.largeOffsetsRead || this.largeOffsetsAt < 0) return;
    // Only packs over 2 GiB have this table; its length is what lies before the trailer.
    this.fill(this.largeOffsetsAt, this.data.length - TRAILER - this.largeOffsetsAt);
    this.largeOffsetsRead = true;
  }

  /** Releases the file, if the index reads one (a later lookup of an unread bucket fails). */
  close(): void {
    this.file?.close();
  }

  /** The fan-out table: per first byte, how many ids start with a smaller or equal byte. */
  private fanoutTable: Uint32Array | undefined;

  private fanout(byte: number): number {
    if (byte < 0) return 0;
    let table = this.fanoutTable;
    if (table === undefined) {
      table = new Uint32Array(256);
      const base = this.nameStride === 20 ? 8 : 0;
      for (let index = 0; index < 256; index++) table[index] = this.data.readUInt32BE(base + index * 4);
      this.fanoutTable = table;
    }
    return table[byte] as number;
  }

  /**
   * The offset in the pack of the object whose 20 raw id bytes start at `at` in `oid` (a tree's
   * content or the commit-graph, read in place), or `undefined`.
   */
  offsetOf(oid: Uint8Array, at = 0): number | undefined {
    const first = oid[at] ?? 0;
    if (this.loaded !== undefined && this.loaded[first] === 0) this.loadBucket(first);
    let low = this.fanout(first - 1);
    let high = this.fanout(first) - 1;
    if (low > high) return undefined;
    const head = idHead(oid, at);
    // Probes read the first four bytes of a stored id in place: no table of heads is built (a new
    // process paid a pass over every id and 4 bytes per object for it before its first lookups).
    const { data, namesAt, nameStride } = this;
    const lowHead = idHead(data, namesAt + low * nameStride);
    const highHead = idHead(data, namesAt + high * nameStride);
    if (head < lowHead || head > highHead) return undefined;
    // Ids are uniformly spread hashes: the row guessed from the head's value (interpolation) is
    // within ~7 rows of the id in a bucket of ~470 (the bench's 121,000-object pack). The rows
    // next to it share its memory, so they are walked one by one from there; probes far apart
    // (a bisection after the guess) each missed the CPU's caches (~0.55 us a lookup before).
    let row = highHead > lowHead ? low + Math.floor(((head - lowHead) / (highHead - lowHead)) * (high - low)) : low;
    for (let step = 0; step < NEAR_ROWS; step++) {
      const order = this.compareRow(row, oid, at, head);
      if (order === 0) return this.offsetAt(row);
      if (order < 0) low = row = row + 1;
      else high = row = row - 1;
      if (low > high) return undefined;
    }
    // Far from the guess (ids that are not uniform): bisection over what is left.
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = this.compareRow(middle, oid, at, head);
      if (order === 0) return this.offsetAt(middle);
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return undefined;
  }

  /** Orders the stored id at `row` against the id at `at` in `oid`, whose first four bytes are `head`. */
  private compareRow(row: number, oid: Uint8Array, at: number, head: number): number {
    const { data, namesAt, nameStride } = this;
    const probe = idHead(data, namesAt + row * nameStride);
    // Most probes differ in the first four bytes; only equal heads compare the rest.
    if (probe !== head) return probe < head ? -1 : 1;
    return compareRest(oid, at, data, namesAt + row * nameStride);
  }

  private offsetAt(index: number): number {
    if (this.offsetsAt < 0) return idHead(this.data, this.namesAt - 4 + index * 24);
    const small = idHead(this.data, this.offsetsAt + index * 4);
    if ((small & 0x80000000) === 0) return small;
    if (this.loaded !== undefined) this.loadLargeOffsets();
    const at = this.largeOffsetsAt + (small & 0x7fffffff) * 8;
    if (at + 8 > this.data.length - TRAILER) throw corruptIndex();
    return this.data.readUInt32BE(at) * 2 ** 32 + this.data.readUInt32BE(at + 4);
  }

  /** The ids in this pack that start with the hex `prefix`. */
  withPrefix(prefix: string): string[] {
    const found: string[] = [];
    const first = prefix.length >= 2 ? Number.parseInt(prefix.slice(0, 2), 16) : -1;
    const low = first < 0 ? 0 : this.fanout(first - 1);
    const high = first < 0 ? this.count : this.fanout(first);
    // A prefix shorter than one byte needs every bucket.
    const [from, to] = first < 0 ? [0, 255] : [first, first];
    for (let byte = from; byte <= to; byte++) this.loadBucket(byte);
    for (let index = low; index < high; index++) {
      const at = this.namesAt + index * this.nameStride;
      const oid = this.data.toString("hex", at, at + 20);
      if (oid.startsWith(prefix)) found.push(oid);
    }
    return found;
  }
}
