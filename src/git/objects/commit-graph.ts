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
}

const SIGNATURE = 0x43475048; // "CGPH"
const OIDF = 0x4f494446;
const OIDL = 0x4f49444c;
const CDAT = 0x43444154;
const EDGE = 0x45444745;
const BASE = 0x42415345;
const HASH = 20;
const PARENT_NONE = 0x70000000;
const EXTRA_EDGES = 0x80000000;
const LAST_EDGE = 0x80000000;

/** One graph file: its commits (sorted ids) and their data; positions are global across a chain. */
interface GraphLayer {
  readonly data: Buffer;
  readonly count: number;
  /** Commits in the layers below this one (a split chain), which parent positions count first. */
  readonly first: number;
  readonly fanoutAt: number;
  readonly namesAt: number;
  readonly dataAt: number;
  readonly edgesAt: number;
  readonly edgesEnd: number;
  readonly heads: Uint32Array;
}

/** The chunks of one graph file, or `undefined` when it is not one this reader understands. */
function parseLayer(data: Buffer, first: number, baseCount: number): GraphLayer | undefined {
  if (data.length < 8 + 12 || data.readUInt32BE(0) !== SIGNATURE) return undefined;
  // Version 1, SHA-1 ids; the base graph count must be what the chain file says.
  if (data[4] !== 1 || data[5] !== 1 || data[7] !== baseCount) return undefined;
  const chunks = data[6] ?? 0;
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
  const count = data.readUInt32BE(fanout.start + 255 * 4);
  if (names.end - names.start !== count * HASH || commits.end - commits.start !== count * (HASH + 16)) return undefined;
  const heads = new Uint32Array(count);
  for (let index = 0; index < count; index++) heads[index] = data.readUInt32BE(names.start + index * HASH);
  return {
    data,
    count,
    first,
    fanoutAt: fanout.start,
    namesAt: names.start,
    dataAt: commits.start,
    edgesAt: edges?.start ?? 0,
    edgesEnd: edges?.end ?? 0,
    heads,
  };
}

/**
 * git's commit-graph (`objects/info/commit-graph`, or a split chain under
 * `objects/info/commit-graphs/`), which `git gc` and `git fetch` write: per commit its tree,
 * parents, committer date and generation. A history walk reads these instead of inflating and
 * parsing every commit, as git itself does. Commits made after the graph was written are not in
 * it; callers read those from the object store. Bloom filters and generation v2 are not used.
 */
export class CommitGraph {
  private readonly raw = Buffer.alloc(HASH);

  private constructor(private readonly layers: readonly GraphLayer[]) {}

  /**
   * Parses a graph file, or the files of a chain (base first); `undefined` when any is not a
   * version 1, SHA-1 graph with consistent chunks (then history is read without it).
   */
  static parse(files: readonly Buffer[]): CommitGraph | undefined {
    const layers: GraphLayer[] = [];
    let first = 0;
    for (const [index, data] of files.entries()) {
      const layer = parseLayer(data, first, index);
      if (layer === undefined) return undefined;
      layers.push(layer);
      first += layer.count;
    }
    return layers.length === 0 ? undefined : new CommitGraph(layers);
  }

  /** Commits in the graph. */
  get count(): number {
    const top = this.layers[this.layers.length - 1];
    return top === undefined ? 0 : top.first + top.count;
  }

  private position(layer: GraphLayer, raw: Buffer): number {
    const { data, heads } = layer;
    const byte = raw[0] ?? 0;
    let low = byte === 0 ? 0 : data.readUInt32BE(layer.fanoutAt + (byte - 1) * 4);
    let high = data.readUInt32BE(layer.fanoutAt + byte * 4) - 1;
    const head = raw.readUInt32BE(0);
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const probe = heads[middle] ?? 0;
      let order = probe === head ? 0 : probe < head ? -1 : 1;
      if (order === 0) {
        const at = layer.namesAt + middle * HASH;
        order = data.compare(raw, 0, HASH, at, at + HASH);
      }
      if (order === 0) return middle;
      if (order < 0) low = middle + 1;
      else high = middle - 1;
    }
    return -1;
  }

  /** The id of the commit at global position `position`. */
  private oidAt(position: number): string {
    for (const layer of this.layers) {
      const local = position - layer.first;
      if (local >= 0 && local < layer.count) {
        const at = layer.namesAt + local * HASH;
        return layer.data.toString("hex", at, at + HASH);
      }
    }
    throw new RangeError(`commit-graph position ${position} out of range`);
  }

  /** What the graph says of commit `oid`, or `undefined` when it is not in the graph. */
  lookup(oid: string): GraphCommitData | undefined {
    const raw = this.raw;
    raw.write(oid, "hex");
    for (let index = this.layers.length - 1; index >= 0; index--) {
      const layer = this.layers[index] as GraphLayer;
      const local = this.position(layer, raw);
      if (local >= 0) return this.dataAt(layer, local);
    }
    return undefined;
  }

  private dataAt(layer: GraphLayer, local: number): GraphCommitData {
    const { data } = layer;
    const at = layer.dataAt + local * (HASH + 16);
    const tree = data.toString("hex", at, at + HASH);
    const first = data.readUInt32BE(at + HASH);
    const second = data.readUInt32BE(at + HASH + 4);
    const parents: string[] = [];
    if (first !== PARENT_NONE) parents.push(this.oidAt(first));
    if (second !== PARENT_NONE) {
      if ((second & EXTRA_EDGES) === 0) parents.push(this.oidAt(second));
      else {
        // An octopus merge: the second and later parents are a list in the EDGE chunk.
        for (let edge = layer.edgesAt + (second & 0x7fffffff) * 4; edge + 4 <= layer.edgesEnd; edge += 4) {
          const value = data.readUInt32BE(edge);
          parents.push(this.oidAt(value & 0x7fffffff));
          if ((value & LAST_EDGE) !== 0) break;
        }
      }
    }
    const high = data.readUInt32BE(at + HASH + 8);
    const low = data.readUInt32BE(at + HASH + 12);
    return { tree, parents, time: (high & 3) * 2 ** 32 + low, generation: high >>> 2 };
  }
}
