import { CatalogError } from "../../errors/catalog-error.js";
import { writeObjectId } from "./hex.js";
import { compareRest, idHead } from "./pack-index.js";

/** What the commit-graph knows of one commit: enough to walk history without inflating it. */
export interface GraphCommitData {
  /** Its root tree. */
  readonly tree: string;
  /** Its parents, first parent first. */
  readonly parents: readonly string[];
  /** The committer date, seconds since the epoch (what orders `git log`). */
  readonly time: number;
  /** Its topological level (1 for a root commit), as git's generation number v1. */
  readonly generation: number;
  /** Its position in the graph (across the layers of a chain), for {@link CommitGraph.pathMayHaveChanged}. */
  readonly position: number;
}

const SIGNATURE = 0x43475048; // "CGPH"
const OIDF = 0x4f494446;
const OIDL = 0x4f49444c;
const CDAT = 0x43444154;
const EDGE = 0x45444745;
const BASE = 0x42415345;
const BIDX = 0x42494458;
const BDAT = 0x42444154;
const HASH = 20;
const PARENT_NONE = 0x70000000;
const EXTRA_EDGES = 0x80000000;
const LAST_EDGE = 0x80000000;

/** A graph file read on demand: positioned reads, and its release. */
export interface CommitGraphFile {
  /** Its size in bytes. */
  readonly size: number;
  /** Reads `length` bytes at `position` into `target` at `offset`; returns how many were read. */
  read(target: Buffer, offset: number, length: number, position: number): number;
  /** Closes the file for good: every page is read, or its store was closed (a later read fails). */
  close(): void;
}

/** Pages of a graph file read on demand (16 KiB). */
const PAGE_SHIFT = 14;

/**
 * A file of at least this many pages is read whole once a quarter of its pages have been read
 * (see `GraphBytes.load`); a smaller one (under 128 KiB, about 2,000 commits) a page at a time.
 */
const WHOLE_AFTER_PAGES = 8;

/**
 * The bytes of one graph file: whole in memory, or a buffer of the file's size filled a page at a
 * time where the graph is read ({@link ensure} before every read). A walk over a few commits then
 * touches a few pages of the file (1.2 MB for 20,000 commits), not all of it: on a VM every new
 * page of memory is a fault the host serves. A walk over much of the history reads the rest in
 * one read once it has read a quarter of the pages.
 */
class GraphBytes {
  private readonly pages: Uint8Array | undefined;
  private pagesRead = 0;

  constructor(
    readonly data: Buffer,
    private readonly file?: CommitGraphFile,
    private readonly pageShift = PAGE_SHIFT,
  ) {
    this.pages = file === undefined ? undefined : new Uint8Array(((data.length - 1) >>> pageShift) + 1);
  }

  /** Makes bytes `start` to `end` (exclusive) of the file readable in {@link data}. */
  ensure(start: number, end: number): void {
    const pages = this.pages;
    if (pages === undefined || end <= start) return;
    const shift = this.pageShift;
    for (let page = start >>> shift; page <= (end - 1) >>> shift; page++) if (pages[page] === 0) this.load(page);
  }

  private load(page: number): void {
    const pages = this.pages as Uint8Array;
    // A walk that has touched a quarter of the pages touches most of them (commits sit in id
    // order, a walk goes in date order: every page soon): the rest in one read, not a read each.
    if (pages.length >= WHOLE_AFTER_PAGES && this.pagesRead >= pages.length >>> 2) {
      this.loadRest();
      return;
    }
    this.readPages(page, page + 1);
    pages[page] = 1;
    if (++this.pagesRead === pages.length) (this.file as CommitGraphFile).close();
  }

  /** Reads pages `first` to `end` (exclusive) in one read. */
  private readPages(first: number, end: number): void {
    const position = first << this.pageShift;
    const length = Math.min(end << this.pageShift, this.data.length) - position;
    if (length <= 0 || (this.file as CommitGraphFile).read(this.data, position, length, position) !== length) {
      throw new CatalogError("corrupt_object", "The commit-graph file is truncated.");
    }
  }

  /**
   * Every page not read yet, in one read from the first of them to the last (the pages read
   * between are read again: at most a quarter of the file, where a read per page would be
   * three quarters of the pages' reads); then the file is closed.
   */
  private loadRest(): void {
    const pages = this.pages as Uint8Array;
    const first = pages.indexOf(0);
    const last = pages.lastIndexOf(0);
    this.readPages(first, last + 1);
    pages.fill(1);
    this.pagesRead = pages.length;
    (this.file as CommitGraphFile).close();
  }

  /** Releases the file, if read on demand. */
  close(): void {
    this.file?.close();
  }
}

/** One graph file: its commits (sorted ids) and their data; positions are global across a chain. */
interface GraphLayer {
  readonly data: Buffer;
  readonly bytes: GraphBytes;
  readonly count: number;
  /** Commits in the layers below this one (a split chain), which parent positions count first. */
  readonly first: number;
  readonly fanoutAt: number;
  readonly namesAt: number;
  readonly dataAt: number;
  readonly edgesAt: number;
  readonly edgesEnd: number;
  /** The changed-path Bloom filters of this layer's commits, when it has them. */
  readonly bloom: BloomLayer | undefined;
}

/** A layer's changed-path Bloom filters (`git commit-graph write --changed-paths`). */
interface BloomLayer {
  /** Where the BIDX chunk starts: per commit, the end of its filter in the filter data. */
  readonly indexAt: number;
  /** Where the filter data starts (after BDAT's 12-byte header). */
  readonly filtersAt: number;
  /** Bytes of filter data. */
  readonly filtersLength: number;
  readonly settings: BloomSettings;
}

/** How a layer's filters were hashed (the BDAT header). */
export interface BloomSettings {
  /** Murmur3 variant: 1 (git < 2.48, bytes above 0x7f hashed as signed) or 2. */
  readonly version: number;
  /** Bits set per path. */
  readonly hashes: number;
}

/**
 * The filter chunks of a layer, or `undefined` when it has none or they are not consistent
 * (then every commit reads as "may have changed", which is always right, only slower).
 */
function parseBloom(
  bytes: GraphBytes,
  offsets: Map<number, { start: number; end: number }>,
  count: number,
): BloomLayer | undefined {
  const [index, filters] = [offsets.get(BIDX), offsets.get(BDAT)];
  if (index === undefined || filters === undefined) return undefined;
  if (index.end - index.start !== count * 4 || filters.end - filters.start < 12) return undefined;
  const { data } = bytes;
  bytes.ensure(filters.start, filters.start + 8);
  if (count > 0) bytes.ensure(index.start + (count - 1) * 4, index.start + count * 4);
  const version = data.readUInt32BE(filters.start);
  const hashes = data.readUInt32BE(filters.start + 4);
  if ((version !== 1 && version !== 2) || hashes < 1 || hashes > 32) return undefined;
  const filtersLength = filters.end - filters.start - 12;
  if (count > 0 && data.readUInt32BE(index.start + (count - 1) * 4) > filtersLength) return undefined;
  return { indexAt: index.start, filtersAt: filters.start + 12, filtersLength, settings: { version, hashes } };
}

/** The chunks of one graph file, or `undefined` when it is not one this reader understands. */
function parseLayer(bytes: GraphBytes, first: number, baseCount: number): GraphLayer | undefined {
  const { data } = bytes;
  if (data.length < 8 + 12) return undefined;
  bytes.ensure(0, 8);
  if (data.readUInt32BE(0) !== SIGNATURE) return undefined;
  // Version 1, SHA-1 ids; the base graph count must be what the chain file says.
  if (data[4] !== 1 || data[5] !== 1 || data[7] !== baseCount) return undefined;
  const chunks = data[6] ?? 0;
  bytes.ensure(8, Math.min(data.length, 8 + (chunks + 1) * 12));
  const offsets = new Map<number, { start: number; end: number }>();
  for (let index = 0; index < chunks; index++) {
    const at = 8 + index * 12;
    if (at + 24 > data.length) return undefined;
    const id = data.readUInt32BE(at);
    const start = Number(data.readBigUInt64BE(at + 4));
    const end = Number(data.readBigUInt64BE(at + 16));
    if (start > end || end > data.length) return undefined;
    offsets.set(id, { start, end });
  }
  const [fanout, names, commits, edges] = [offsets.get(OIDF), offsets.get(OIDL), offsets.get(CDAT), offsets.get(EDGE)];
  if (fanout === undefined || names === undefined || commits === undefined) return undefined;
  if (baseCount > 0 && offsets.get(BASE) === undefined) return undefined;
  if (fanout.end - fanout.start !== 256 * 4) return undefined;
  bytes.ensure(fanout.start, fanout.end);
  const count = data.readUInt32BE(fanout.start + 255 * 4);
  if (names.end - names.start !== count * HASH || commits.end - commits.start !== count * (HASH + 16)) return undefined;
  return {
    data,
    bytes,
    count,
    first,
    fanoutAt: fanout.start,
    namesAt: names.start,
    dataAt: commits.start,
    edgesAt: edges?.start ?? 0,
    edgesEnd: edges?.end ?? 0,
    bloom: parseBloom(bytes, offsets, count),
  };
}

/**
 * git's commit-graph (`objects/info/commit-graph`, or a split chain under
 * `objects/info/commit-graphs/`), which `git gc` and `git fetch` write: per commit its tree,
 * parents, committer date and generation. A history walk reads these instead of inflating and
 * parsing every commit, as git itself does. Commits made after the graph was written are not in
 * it; callers read those from the object store. Changed-path Bloom filters, when the graph has
 * them, tell that a commit did not touch a path without reading its trees (as `git log -- path`
 * uses them); generation v2 is not used.
 */
export class CommitGraph {
  private readonly raw = Buffer.alloc(HASH);
  /** Bloom keys of the paths asked about, per hash version. */
  private readonly keys = new Map<string, readonly Uint32Array[]>();
  /** The keys {@link pathKeys} gave last, with the path and settings they are for. */
  private lastKeys:
    | { readonly path: string; readonly settings: BloomSettings; readonly keys: readonly Uint32Array[] | undefined }
    | undefined;

  private constructor(private readonly layers: readonly GraphLayer[]) {}

  /**
   * Parses a graph file, or the files of a chain (base first); `undefined` when any is not a
   * version 1, SHA-1 graph with consistent chunks (then history is read without it).
   */
  static parse(files: readonly Buffer[]): CommitGraph | undefined {
    return CommitGraph.fromBytes(files.map((data) => new GraphBytes(data)));
  }

  /**
   * {@link parse} of files read a page at a time where the graph is read (see `GraphBytes`);
   * `undefined` (and every file released) as {@link parse} says. `pageShift`: log2 of the page
   * size (tests make pages small).
   */
  static open(files: readonly CommitGraphFile[], pageShift = PAGE_SHIFT): CommitGraph | undefined {
    const bytes = files.map((file) => new GraphBytes(Buffer.allocUnsafeSlow(file.size), file, pageShift));
    let graph: CommitGraph | undefined;
    try {
      graph = CommitGraph.fromBytes(bytes);
    } finally {
      if (graph === undefined) for (const layer of bytes) layer.close();
    }
    return graph;
  }

  private static fromBytes(files: readonly GraphBytes[]): CommitGraph | undefined {
    const layers: GraphLayer[] = [];
    let first = 0;
    for (const [index, bytes] of files.entries()) {
      const layer = parseLayer(bytes, first, index);
      if (layer === undefined) return undefined;
      layers.push(layer);
      first += layer.count;
    }
    return layers.length === 0 ? undefined : new CommitGraph(layers);
  }

  /** Releases the files of a graph read on demand. */
  close(): void {
    for (const layer of this.layers) layer.bytes.close();
  }

  /** Commits in the graph. */
  get count(): number {
    const top = this.layers[this.layers.length - 1];
    return top === undefined ? 0 : top.first + top.count;
  }

  private position(layer: GraphLayer, raw: Buffer): number {
    const { data } = layer;
    const byte = raw[0] ?? 0;
    let low = byte === 0 ? 0 : data.readUInt32BE(layer.fanoutAt + (byte - 1) * 4);
    let high = data.readUInt32BE(layer.fanoutAt + byte * 4) - 1;
    // The ids that share the first byte, read where they are stored (no table of heads built).
    layer.bytes.ensure(layer.namesAt + low * HASH, layer.namesAt + (high + 1) * HASH);
    const head = raw.readUInt32BE(0);
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const probe = idHead(data, layer.namesAt + middle * HASH);
      let order = probe === head ? 0 : probe < head ? -1 : 1;
      if (order === 0) order = compareRest(raw, 0, data, layer.namesAt + middle * HASH);
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The layer that holds global position `position`. */
  private layerOf(position: number): GraphLayer {
    const layers = this.layers;
    if (layers.length === 1) {
      const only = layers[0] as GraphLayer;
      if (position >= 0 && position < only.count) return only;
    } else {
      for (const layer of layers) if (position >= layer.first && position < layer.first + layer.count) return layer;
    }
    // A parent position is the graph author's number: one past the end is a damaged graph, not a crash.
    throw new CatalogError("corrupt_object", `The commit-graph names a commit at position ${position}, outside the graph.`);
  }

  /** The id of the commit at global position `position`. */
  private oidAt(position: number): string {
    const layer = this.layerOf(position);
    const at = layer.namesAt + (position - layer.first) * HASH;
    layer.bytes.ensure(at, at + HASH);
    return layer.data.toString("hex", at, at + HASH);
  }

  /**
   * The buffer that holds the raw id of the commit at `position`; its 20 bytes start at
   * {@link idOffset} in it. A read by raw id turns no id into text.
   */
  idData(position: number): Buffer {
    const layer = this.layerOf(position);
    const at = layer.namesAt + (position - layer.first) * HASH;
    layer.bytes.ensure(at, at + HASH);
    return layer.data;
  }

  /** Where the raw id of the commit at `position` starts in {@link idData}. */
  idOffset(position: number): number {
    const layer = this.layerOf(position);
    return layer.namesAt + (position - layer.first) * HASH;
  }

  /** The hex id of the commit at `position` (a position from {@link positionOf} or {@link parentPositions}). */
  oidOf(position: number): string {
    return this.oidAt(position);
  }

  /** The global position of commit `oid`, or -1 when the graph does not have it. */
  positionOf(oid: string): number {
    const raw = this.raw;
    if (!writeObjectId(oid, raw)) return -1;
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index] as GraphLayer;
      const local = this.position(layer, raw);
      if (local >= 0) return layer.first + local;
    }
    return -1;
  }

  /**
   * The buffer that holds the root tree id of the commit at `position`; the id's 20 raw bytes
   * start at {@link treeOffset} in it. Read in place, a walk turns no id into text.
   */
  treeData(position: number): Buffer {
    const layer = this.layerOf(position);
    const at = layer.dataAt + (position - layer.first) * (HASH + 16);
    layer.bytes.ensure(at, at + HASH + 16);
    return layer.data;
  }

  /** Where the root tree id of the commit at `position` starts in {@link treeData}. */
  treeOffset(position: number): number {
    const layer = this.layerOf(position);
    return layer.dataAt + (position - layer.first) * (HASH + 16);
  }

  /** The root tree id of the commit at `position`, in hex. */
  treeOf(position: number): string {
    const at = this.treeOffset(position);
    return this.treeData(position).toString("hex", at, at + HASH);
  }

  /** The committer date (seconds) of the commit at `position`. */
  timeOf(position: number): number {
    const layer = this.layerOf(position);
    const at = layer.dataAt + (position - layer.first) * (HASH + 16) + HASH + 8;
    layer.bytes.ensure(at, at + 8);
    return (layer.data.readUInt32BE(at) & 3) * 2 ** 32 + layer.data.readUInt32BE(at + 4);
  }

  /** The global positions of the parents of the commit at `position`, first parent first. */
  parentPositions(position: number): number[] {
    const layer = this.layerOf(position);
    const { data } = layer;
    const at = layer.dataAt + (position - layer.first) * (HASH + 16);
    layer.bytes.ensure(at, at + HASH + 16);
    const first = data.readUInt32BE(at + HASH);
    const second = data.readUInt32BE(at + HASH + 4);
    const parents: number[] = [];
    if (first !== PARENT_NONE) parents.push(first);
    if (second === PARENT_NONE) return parents;
    if ((second & EXTRA_EDGES) === 0) {
      parents.push(second);
      return parents;
    }
    // An octopus merge: the second and later parents are a list in the EDGE chunk.
    layer.bytes.ensure(layer.edgesAt, layer.edgesEnd);
    for (let edge = layer.edgesAt + (second & 0x7fffffff) * 4; edge + 4 <= layer.edgesEnd; edge += 4) {
      const value = data.readUInt32BE(edge);
      parents.push(value & 0x7fffffff);
      if ((value & LAST_EDGE) !== 0) break;
    }
    return parents;
  }

  /** What the graph says of commit `oid`, or `undefined` when it is not in the graph. */
  lookup(oid: string): GraphCommitData | undefined {
    const raw = this.raw;
    if (!writeObjectId(oid, raw)) return undefined;
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index] as GraphLayer;
      const local = this.position(layer, raw);
      if (local >= 0) return this.dataAt(layer, local);
    }
    return undefined;
  }

  /** Whether any layer has changed-path Bloom filters. */
  get hasBloomFilters(): boolean {
    return this.layers.some((layer) => layer.bloom !== undefined);
  }

  /**
   * False only when the commit at `position` (from {@link lookup}) certainly did not change
   * `path` (a file or directory, no trailing slash) against its first parent: its Bloom filter
   * lacks the path or one of its leading directories, as git asks it. True when it may have, or
   * when there is no usable filter (a layer without filters, a commit beyond `--max-new-filters`,
   * a version 1 filter and a path with bytes above 0x7f, which version 1 hashed wrongly).
   */
  pathMayHaveChanged(position: number, path: string): boolean {
    if (path === "") return true;
    for (const layer of this.layers) {
      const local = position - layer.first;
      if (local < 0 || local >= layer.count) continue;
      const bloom = layer.bloom;
      if (bloom === undefined) return true;
      const { data } = layer;
      layer.bytes.ensure(bloom.indexAt + Math.max(0, local - 1) * 4, bloom.indexAt + (local + 1) * 4);
      const end = uint32At(data, bloom.indexAt + local * 4);
      const start = local === 0 ? 0 : uint32At(data, bloom.indexAt + (local - 1) * 4);
      if (end <= start || end > bloom.filtersLength) return true;
      const keys = this.pathKeys(path, bloom.settings);
      if (keys === undefined) return true;
      layer.bytes.ensure(bloom.filtersAt + start, bloom.filtersAt + end);
      // Every key (the path and each leading directory) must be in the filter for "maybe".
      for (const key of keys) if (!filterHas(data, bloom.filtersAt + start, end - start, key)) return false;
      return true;
    }
    return true;
  }

  /** The Bloom keys of `path` and each of its leading directories (git adds all of them to a filter). */
  private pathKeys(path: string, settings: BloomSettings): readonly Uint32Array[] | undefined {
    // A walk asks one path per commit, thousands of times: the last answer, without building its map key.
    const last = this.lastKeys;
    if (last !== undefined && last.path === path && last.settings === settings) return last.keys;
    const keys = this.pathKeysOf(path, settings);
    this.lastKeys = { path, settings, keys };
    return keys;
  }

  /** The path's keys and each leading directory's under `settings`, remembered for up to 1,024 paths and settings. */
  private pathKeysOf(path: string, settings: BloomSettings): readonly Uint32Array[] | undefined {
    const id = `${settings.version}:${settings.hashes}:${path}`;
    const known = this.keys.get(id);
    if (known !== undefined) return known;
    const bytes = Buffer.from(path, "utf8");
    if (settings.version === 1 && bytes.some((byte) => byte > 0x7f)) return undefined;
    const keys: Uint32Array[] = [];
    for (let end = bytes.length; end > 0; end = bytes.lastIndexOf(0x2f, end - 1)) {
      keys.push(bloomKey(bytes.subarray(0, end), settings.hashes));
    }
    if (this.keys.size > 1024) this.keys.clear();
    this.keys.set(id, keys);
    return keys;
  }

  private dataAt(layer: GraphLayer, local: number): GraphCommitData {
    const { data } = layer;
    const at = layer.dataAt + local * (HASH + 16);
    layer.bytes.ensure(at, at + HASH + 16);
    const tree = data.toString("hex", at, at + HASH);
    const first = data.readUInt32BE(at + HASH);
    const second = data.readUInt32BE(at + HASH + 4);
    const parents: string[] = [];
    if (first !== PARENT_NONE) parents.push(this.oidAt(first));
    if (second !== PARENT_NONE) {
      if ((second & EXTRA_EDGES) === 0) parents.push(this.oidAt(second));
      else {
        // An octopus merge: the second and later parents are a list in the EDGE chunk.
        layer.bytes.ensure(layer.edgesAt, layer.edgesEnd);
        for (let edge = layer.edgesAt + (second & 0x7fffffff) * 4; edge + 4 <= layer.edgesEnd; edge += 4) {
          const value = data.readUInt32BE(edge);
          parents.push(this.oidAt(value & 0x7fffffff));
          if ((value & LAST_EDGE) !== 0) break;
        }
      }
    }
    const high = data.readUInt32BE(at + HASH + 8);
    const low = data.readUInt32BE(at + HASH + 12);
    return { tree, parents, time: (high & 3) * 2 ** 32 + low, generation: high >>> 2, position: layer.first + local };
  }
}

/** One 32-bit murmur3 hash (x86 variant) of `bytes`, as git's `murmur3_seeded_v2` computes it. */
export function murmur3(seed: number, bytes: Uint8Array): number {
  const c1 = 0xcc9e2d51;
  const c2 = 0x1b873593;
  let hash = seed >>> 0;
  const blocks = bytes.length >>> 2;
  for (let block = 0; block < blocks; block++) {
    const at = block * 4;
    let k =
      ((bytes[at] as number) |
        ((bytes[at + 1] as number) << 8) |
        ((bytes[at + 2] as number) << 16) |
        ((bytes[at + 3] as number) << 24)) >>>
      0;
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    hash ^= k;
    hash = (hash << 13) | (hash >>> 19);
    hash = (Math.imul(hash, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = bytes.length & 3;
  if (rest > 0) {
    // The last one to three bytes, little-endian, as murmur3's tail.
    let k = 0;
    for (let index = rest - 1; index >= 0; index--) k = (k << 8) | (bytes[tail + index] as number);
    k = Math.imul(k, c1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, c2);
    hash ^= k;
  }
  hash ^= bytes.length;
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** Whether the filter of `length` bytes at `base` has every bit of `key` set (git's `bloom_filter_contains`). */
/** The big-endian 32-bit number at `at` (within bounds: the caller has checked), without `readUInt32BE`'s checks. */
function uint32At(data: Uint8Array, at: number): number {
  return (
    (((data[at] as number) << 24) |
      ((data[at + 1] as number) << 16) |
      ((data[at + 2] as number) << 8) |
      (data[at + 3] as number)) >>>
    0
  );
}

function filterHas(data: Buffer, base: number, length: number, key: Uint32Array): boolean {
  const bits = length * 8;
  for (let index = 0; index < key.length; index++) {
    const bit = (key[index] as number) % bits;
    if (((data[base + (bit >>> 3)] as number) & (1 << (bit & 7))) === 0) return false;
  }
  return true;
}

/** A path's Bloom key: `hashes` bit positions from two murmur3 hashes, as git's `fill_bloom_key` makes them. */
function bloomKey(bytes: Uint8Array, hashes: number): Uint32Array {
  const first = murmur3(0x293ae76f, bytes);
  const second = murmur3(0x7e646e2c, bytes);
  const key = new Uint32Array(hashes);
  for (let index = 0; index < hashes; index++) key[index] = (first + Math.imul(index, second)) >>> 0;
  return key;
}
