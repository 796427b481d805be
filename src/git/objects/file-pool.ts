import { closeSync, fstatSync, readSync } from "node:fs";
import { CatalogError } from "../../errors/catalog-error.js";
import type { GitFileReader } from "../git-file-reader.js";
import type { PackIndexFile } from "./pack-index.js";

/** How many pack, index and graph files a store holds open at most, by default. */
export const OPEN_FILES = 64;

/**
 * Files read by position on demand (packs, pack indexes, commit-graph files), with at most
 * `limit` of them open at once: a `.pack` is read for as long as its store lives and every `.idx`
 * keeps its descriptor until all 256 of its buckets are read, so a repository of hundreds of
 * packs would otherwise hold hundreds of descriptors (EMFILE). The
 * least recently read file gives its descriptor up; it is opened again on its next read, and
 * refused then if the name now holds another file (other inode, device or size): a commit-graph
 * is replaced by a rename, and mixing pages of two files would give wrong answers.
 */
export class FilePool {
  /** The files holding a descriptor, least recently read first (a Map keeps insertion order). */
  private readonly open = new Map<PooledFile, true>();

  constructor(
    private readonly reader: GitFileReader,
    private readonly limit = OPEN_FILES,
  ) {}

  /** Descriptors held now (tests check the bound). */
  get openCount(): number {
    return this.open.size;
  }

  /** `file` opened for positioned reads; `undefined` when it is not there. */
  openFile(file: string): PackIndexFile | undefined {
    const descriptor = this.reader.open(file);
    if (descriptor === undefined) return undefined;
    let stats: ReturnType<typeof fstatSync>;
    try {
      stats = fstatSync(descriptor);
    } catch (error) {
      closeSync(descriptor);
      throw error;
    }
    const pooled = new PooledFile(this, file, descriptor, stats.dev, stats.ino, stats.size);
    this.touch(pooled);
    return pooled;
  }

  /** Marks `file` as the most recently read, releasing the least recently read past the limit. */
  touch(file: PooledFile): void {
    this.open.delete(file);
    this.open.set(file, true);
    while (this.open.size > this.limit) {
      const oldest = this.open.keys().next().value as PooledFile;
      this.open.delete(oldest);
      oldest.release();
    }
  }

  /** Forgets `file` (released or closed). */
  forget(file: PooledFile): void {
    this.open.delete(file);
  }

  /** Reopens `file`; `undefined` when it is gone. */
  reopen(file: string): number | undefined {
    return this.reader.open(file);
  }
}

class PooledFile implements PackIndexFile {
  /** Set by {@link close}: the owner is done with the file, and a later read is a bug. */
  private closed = false;

  constructor(
    private readonly pool: FilePool,
    private readonly path: string,
    private descriptor: number | undefined,
    private readonly dev: number,
    private readonly ino: number,
    readonly size: number,
  ) {}

  read(target: Buffer, offset: number, length: number, position: number): number {
    if (this.closed) throw new CatalogError("missing_object", `${this.path} was read after its object store was closed.`);
    const descriptor = this.descriptor ?? this.reopen();
    this.pool.touch(this);
    return readSync(descriptor, target, offset, length, position);
  }

  private reopen(): number {
    const descriptor = this.pool.reopen(this.path);
    if (descriptor === undefined) throw new CatalogError("missing_object", `${this.path} disappeared.`);
    let same = false;
    try {
      const stats = fstatSync(descriptor);
      same = stats.dev === this.dev && stats.ino === this.ino && stats.size === this.size;
    } finally {
      if (!same) closeSync(descriptor);
    }
    if (!same) throw new CatalogError("missing_object", `${this.path} was replaced while it was being read.`);
    this.descriptor = descriptor;
    return descriptor;
  }

  /** Gives the descriptor up (the pool is full); the next read opens the file again. */
  release(): void {
    if (this.descriptor !== undefined) closeSync(this.descriptor);
    this.descriptor = undefined;
  }

  /** Closes the file for good: its owner has read all of it, or was closed. */
  close(): void {
    this.closed = true;
    this.pool.forget(this);
    this.release();
  }
}
