import path from "node:path";
import { type GitFileReader, MAX_METADATA_BYTES } from "../git-file-reader.js";
import { LruCache } from "../lru-cache.js";
import { CommitGraph } from "./commit-graph.js";
import { FilePool, OPEN_FILES } from "./file-pool.js";
import { type GitObject, MissingObjectError, type ObjectStore, objectType } from "./git-object.js";
import { writeObjectId } from "./hex.js";
import { Inflater } from "./inflater.js";
import { checkClaimedSize, corruptObject, MAX_NESTED_BASES } from "./object-limits.js";
import { baseWeight, PackFile, type PackReadOptions } from "./pack-file.js";
import { PackIndex, type PackIndexFile } from "./pack-index.js";

/** Options of {@link NodeObjectStore}. */
export interface NodeObjectStoreOptions {
  /**
   * Bytes of resolved delta bases kept, so neighbouring objects of one chain are built once;
   * split evenly between the packs (at least 4 MiB each).
   * @defaultValue 32 MiB
   */
  readonly deltaBaseBytes?: number;
  /** How packs are read (sizes for whole reads and windows); tests make them small. */
  readonly packs?: PackReadOptions;
  /**
   * Pack, pack index and commit-graph files held open at most; the least recently read is closed and
   * opened again when needed (see {@link FilePool}).
   * @defaultValue 64
   */
  readonly openFiles?: number;
}

/**
 * The objects directories of a repository: its own, then those named in `info/alternates`. Each
 * alternate is opened once here, so a confined reader refuses one outside the workspace up front.
 */
export function objectDirectories(objectsDirectory: string, reader: GitFileReader): string[] {
  const directories = [objectsDirectory];
  const alternates =
    reader.readFile(path.join(objectsDirectory, "info", "alternates"), MAX_METADATA_BYTES)?.toString("utf8") ?? "";
  for (const line of alternates.split("\n")) {
    const entry = line.trim();
    if (entry === "" || entry.startsWith("#")) continue;
    const directory = path.resolve(objectsDirectory, entry);
    if (reader.kind(directory) === "directory") directories.push(directory);
  }
  return directories;
}

/**
 * Compressed bytes inflated to read a loose object's header (`type size\0`, at most 28 bytes): a
 * dynamic Huffman block's code tables come first and take up to ~290 bytes, and 1 KiB of input
 * inflates to at most ~1 MiB.
 */
const LOOSE_HEAD_INPUT = 1024;
const LOOSE_HEAD = /^(commit|tree|blob|tag) (0|[1-9][0-9]{0,15})\0/;

/** A loose object's compressed bytes kept between its size and its content read, at most (see `lastLoose`). */
const LAST_LOOSE_BYTES = 1024 * 1024;

/** The longest loose object header: `commit `, 16 digits, a NUL (longer sizes are refused). */
const LOOSE_HEAD_BYTES = 32;

/**
 * A loose object's header (`type size\0`), inflated from a bounded prefix of its compressed
 * bytes with the store's reused zlib handle (`inflateSync` set up and tore down a handle per
 * object: a wide copy search reads thousands of headers).
 */
function looseHeader(
  oid: string,
  deflated: Buffer,
  inflater: Inflater,
  head: Buffer,
): { readonly type: GitObject["type"]; readonly size: number; readonly headerBytes: number } {
  const what = `Loose object ${oid}`;
  let written: number;
  try {
    // A partial stream: whatever the first bytes inflate to, without an error for the rest.
    written = inflater.inflatePrefix(deflated, 0, Math.min(deflated.length, LOOSE_HEAD_INPUT), head, what);
  } catch {
    throw corruptObject(`${what} is not zlib data.`);
  }
  const match = LOOSE_HEAD.exec(head.toString("latin1", 0, written));
  const type = objectType(match?.[1] ?? "");
  if (match === null || type === undefined) throw corruptObject(`${what} has no valid header.`);
  const size = Number(match[2]);
  checkClaimedSize(what, size, deflated.length);
  return { type, size, headerBytes: match[0].length };
}

/**
 * A loose object: its header is read first from a bounded prefix, its size checked, then the
 * whole stream is inflated to exactly that size. Inflating first and reading the header after
 * let a 1 MB file of zeros that claims 8 bytes inflate to a gigabyte.
 */
function parseLoose(oid: string, deflated: Buffer, inflater: Inflater, head: Buffer): GitObject {
  const { type, size, headerBytes } = looseHeader(oid, deflated, inflater, head);
  return { type, content: inflater.inflate(deflated, headerBytes + size, `Loose object ${oid}`).subarray(headerBytes) };
}

/**
 * The fast driver: loose objects and packs read with synchronous `node:fs` calls and native
 * zlib. Packs are listed once and listed again only when an object is not found, so objects
 * written by a later `git gc` or `git fetch` are still found.
 */
export class NodeObjectStore implements ObjectStore {
  private packs: PackFile[] | undefined;
  private readonly inflater = new Inflater();
  /** Scratch for a loose object's header. */
  private readonly looseHead = Buffer.alloc(LOOSE_HEAD_BYTES);
  /**
   * The compressed bytes of the loose object whose size was asked last: a copy search asks a
   * candidate's size, then (when the size rule lets it through) its content, and the file is
   * read once for both. One entry, a few KiB usually; a loose object that changed in between
   * cannot have (an object's file holds its id's content).
   */
  private lastLoose: { readonly oid: string; readonly deflated: Buffer } | undefined;
  /** The commit-graph: `undefined` before it is looked for, `null` when there is none. */
  private graph: CommitGraph | null | undefined;
  /** The id being looked up, as raw bytes (reused: one lookup at a time). */
  private readonly raw = Buffer.alloc(20);
  /** The pack, index and graph files, with a bounded number of descriptors. */
  private readonly files: FilePool;

  constructor(
    private readonly directories: readonly string[],
    private readonly reader: GitFileReader,
    private readonly options: NodeObjectStoreOptions = {},
  ) {
    this.files = new FilePool(reader, options.openFiles ?? OPEN_FILES);
  }

  /** Pack, index and graph files holding a descriptor now (at most {@link NodeObjectStoreOptions.openFiles}). */
  get openFileCount(): number {
    return this.files.openCount;
  }

  private listPacks(): PackFile[] {
    const known = new Map((this.packs ?? []).map((pack) => [pack.path, pack]));
    const packs: PackFile[] = [];
    for (const directory of this.directories) {
      const packDirectory = path.join(directory, "pack");
      const indexes = this.reader.list(packDirectory).filter((name) => name.endsWith(".idx"));
      // The delta base budget is split between the packs (git's cache is one for all packs too).
      const budget = Math.max(4 * 1024 * 1024, (this.options.deltaBaseBytes ?? 32 * 1024 * 1024) / Math.max(1, indexes.length));
      for (const name of indexes) {
        const packPath = path.join(packDirectory, `${name.slice(0, -4)}.pack`);
        const existing = known.get(packPath);
        if (existing !== undefined) {
          known.delete(packPath);
          packs.push(existing);
          continue;
        }
        const index = this.openIndex(path.join(packDirectory, name));
        if (index === undefined) continue;
        packs.push(
          new PackFile(
            packPath,
            index,
            new LruCache<number, GitObject>(budget, (object) => baseWeight(object.content.length)),
            (oid) => this.readNestedBase(oid),
            this.files,
            this.inflater,
            this.options.packs,
          ),
        );
      }
    }
    for (const gone of known.values()) gone.close();
    this.packs = packs;
    return packs;
  }

  /** `file` opened for positioned reads, in the bounded pool (see {@link FilePool}); `undefined` when it is not there. */
  private openFile(file: string): PackIndexFile | undefined {
    return this.files.openFile(file);
  }

  /** The pack index at `file`, read bucket by bucket as lookups need them; `undefined` when it is gone. */
  private openIndex(file: string): PackIndex | undefined {
    const source = this.openFile(file);
    if (source === undefined) return undefined;
    try {
      return PackIndex.open(source);
    } catch (error) {
      source.close();
      throw error;
    }
  }

  private fromPacks(oid: string, packs: readonly PackFile[]): GitObject | undefined {
    const raw = this.raw;
    if (!writeObjectId(oid, raw)) return undefined;
    return this.fromPacksRaw(raw, 0, packs);
  }

  private fromPacksRaw(source: Uint8Array, at: number, packs: readonly PackFile[]): GitObject | undefined {
    for (const pack of packs) {
      const offset = pack.index.offsetOf(source, at);
      if (offset !== undefined) return pack.readAt(offset);
    }
    return undefined;
  }

  /** How many ref-delta bases outside their own pack are being read, one inside the other. */
  private nestedBases = 0;

  /**
   * A ref delta's base that is not in the delta's own pack, read through the whole store. Git
   * never does this (a base must be in the same pack), but packs written by other tools have;
   * each such base nests a read in a read, so a cycle of them across packs (or a long chain) would
   * overflow the stack: past {@link MAX_NESTED_BASES} the chain is refused.
   */
  private readNestedBase(oid: string): GitObject {
    if (this.nestedBases >= MAX_NESTED_BASES) {
      throw corruptObject(
        `delta bases in other packs nest more than ${MAX_NESTED_BASES} deep at ${oid} (a cycle of ref deltas?).`,
      );
    }
    this.nestedBases++;
    try {
      return this.readSync(oid);
    } finally {
      this.nestedBases--;
    }
  }

  readRawSync(source: Uint8Array, at: number): GitObject {
    const packed = this.fromPacksRaw(source, at, this.packs ?? this.listPacks());
    if (packed !== undefined) return packed;
    // Not in a pack known so far: loose, or in a pack written since (the text id path looks again).
    return this.readSync(Buffer.from(source.buffer, source.byteOffset + at, 20).toString("hex"));
  }

  /** {@link ObjectStore.readTransientRawSync}: a packed whole object into the pack's reused scratch; anything else as {@link readRawSync}. */
  readTransientRawSync(source: Uint8Array, at: number): GitObject {
    for (const pack of this.packs ?? this.listPacks()) {
      const offset = pack.index.offsetOf(source, at);
      if (offset !== undefined) return pack.readTransientAt(offset);
    }
    return this.readRawSync(source, at);
  }

  private fromLoose(oid: string): GitObject | undefined {
    const deflated = this.looseBytes(oid);
    return deflated === undefined ? undefined : parseLoose(oid, deflated, this.inflater, this.looseHead);
  }

  /** The compressed bytes of the loose object `oid` (the last size read's, when it was this one). */
  private looseBytes(oid: string): Buffer | undefined {
    const last = this.lastLoose;
    if (last?.oid === oid) {
      this.lastLoose = undefined;
      return last.deflated;
    }
    for (const directory of this.directories) {
      const deflated = this.reader.readFile(path.join(directory, oid.slice(0, 2), oid.slice(2)));
      if (deflated !== undefined) return deflated;
    }
    return undefined;
  }

  async read(oid: string): Promise<GitObject> {
    return this.readSync(oid);
  }

  /** {@link ObjectStore.sizeSync}: the pack entry's header, or the loose object's, without its content. */
  sizeSync(oid: string): number {
    if (!writeObjectId(oid, this.raw)) throw new MissingObjectError(oid);
    for (const pack of this.packs ?? this.listPacks()) {
      const offset = pack.index.offsetOf(this.raw, 0);
      if (offset !== undefined) return pack.sizeAt(offset);
    }
    const deflated = this.looseBytes(oid);
    if (deflated !== undefined) {
      const { size } = looseHeader(oid, deflated, this.inflater, this.looseHead);
      // Kept for the content read that usually follows; not when it is large (memory), nor when the header was refused.
      this.lastLoose = deflated.length <= LAST_LOOSE_BYTES ? { oid, deflated } : undefined;
      return size;
    }
    // Perhaps in a pack written since the packs were listed (rare): the full read looks again.
    return this.readSync(oid).content.length;
  }

  /** {@link read}, synchronously: every read of this driver is a synchronous `node:fs` call. */
  readSync(oid: string): GitObject {
    if (!/^[0-9a-f]{40}$/.test(oid)) throw new MissingObjectError(oid);
    const packed = this.fromPacks(oid, this.packs ?? this.listPacks());
    if (packed !== undefined) return packed;
    const loose = this.fromLoose(oid);
    if (loose !== undefined) return loose;
    const repacked = this.fromPacks(oid, this.listPacks());
    if (repacked !== undefined) return repacked;
    throw new MissingObjectError(oid);
  }

  /**
   * The repository's commit-graph (a single file or a split chain), read once; `undefined` when
   * there is none or it is not one this reader understands. A graph written before later commits
   * is still right about the commits it has (commits never change).
   */
  commitGraph(): CommitGraph | undefined {
    if (this.graph === undefined) this.graph = this.loadCommitGraph() ?? null;
    return this.graph ?? undefined;
  }

  private loadCommitGraph(): CommitGraph | undefined {
    const info = path.join(this.directories[0] as string, "info");
    const single = this.openFile(path.join(info, "commit-graph"));
    if (single !== undefined) return CommitGraph.open([single]);
    const chainDirectory = path.join(info, "commit-graphs");
    const chain = this.reader.readFile(path.join(chainDirectory, "commit-graph-chain"), MAX_METADATA_BYTES)?.toString("latin1");
    if (chain === undefined) return undefined;
    const files: PackIndexFile[] = [];
    for (const hash of chain.split("\n").filter((line) => /^[0-9a-f]{40}$/.test(line))) {
      const file = this.openFile(path.join(chainDirectory, `graph-${hash}.graph`));
      if (file === undefined) {
        for (const opened of files) opened.close();
        return undefined;
      }
      files.push(file);
    }
    return CommitGraph.open(files);
  }

  async expand(prefix: string): Promise<readonly string[]> {
    const found = new Set<string>();
    for (const pack of this.listPacks()) for (const oid of pack.index.withPrefix(prefix)) found.add(oid);
    if (prefix.length >= 2) {
      const head = prefix.slice(0, 2);
      for (const directory of this.directories) {
        for (const name of this.reader.list(path.join(directory, head))) {
          const oid = head + name;
          if (oid.startsWith(prefix) && name.length === 38) found.add(oid);
        }
      }
    }
    return [...found].sort();
  }

  packedObjectCount(): number {
    return (this.packs ?? this.listPacks()).reduce((sum, pack) => sum + pack.index.count, 0);
  }

  close(): void {
    for (const pack of this.packs ?? []) pack.close();
    this.packs = undefined;
    this.inflater.close();
    this.graph?.close();
    this.graph = undefined;
  }
}
