import { CatalogError } from "../../errors/catalog-error.js";
import type { TreeEntry, TreeEntryKind } from "./parse-objects.js";

const SPACE = 0x20;
const SLASH = 0x2f;

const ASCII_NAME = /^[\x20-\x7e]*$/;
let lastName = "";
let lastAscii = true;

/** Whether `name` is printable ASCII (remembered for the last name: a walk asks the same few). */
function isAscii(name: string): boolean {
  if (name !== lastName) [lastName, lastAscii] = [name, ASCII_NAME.test(name)];
  return lastAscii;
}

function corruptTree(): CatalogError {
  return new CatalogError("corrupt_object", "A tree object is corrupt.");
}

function kindOf(mode: string): TreeEntryKind {
  if (mode === "40000" || mode === "040000") return "tree";
  if (mode === "160000") return "commit";
  return "blob";
}

/**
 * A tree object kept in its stored form. Entries are located once (three offsets each) and
 * turned into {@link TreeEntry} objects only when asked for, so comparing two versions of a large
 * directory that differ in one entry allocates one or two entries, not all of them.
 */
export class GitTree {
  /** Per entry: where it starts, where its name starts, where its name ends (the NUL); located on first use. */
  private table: Int32Array | undefined;
  private count = -1;
  private byName: Map<string, number> | undefined;

  constructor(
    /** The tree's stored content. */
    readonly content: Buffer,
    /**
     * Where its own id is, when it was read by raw id (what a cache keyed by part of the id
     * checks): the 20 bytes at {@link idAt} here, a parent tree's content or the commit-graph.
     */
    private readonly idSource?: Uint8Array,
    private readonly idAt = 0,
  ) {}

  /** Locates every entry (a tree read only to find one name by {@link locate} never needs this). */
  private parse(): void {
    const content = this.content;
    const length = content.length;
    // The shortest entry ("1 x\0" and an id) has 24 bytes, which bounds the entry count.
    const offsets = new Int32Array(3 * (Math.floor(length / 24) + 1));
    let count = 0;
    // Plain byte loops: entries are short, and a native indexOf per field costs more than the scan.
    for (let position = 0; position < length; count++) {
      let space = position;
      while (space < length && content[space] !== SPACE) space++;
      let nul = space + 1;
      while (nul < length && content[nul] !== 0) nul++;
      // An empty mode or name is corrupt (git never writes one); refusing it also keeps every
      // entry at 24 bytes or more, the bound the table above is sized by.
      if (nul + 21 > length || space === position || nul === space + 1) throw corruptTree();
      offsets[count * 3] = position;
      offsets[count * 3 + 1] = space + 1;
      offsets[count * 3 + 2] = nul;
      position = nul + 21;
    }
    this.table = offsets;
    this.count = count;
  }

  private get offsets(): Int32Array {
    if (this.table === undefined) this.parse();
    return this.table as Int32Array;
  }

  /** Number of entries. */
  get size(): number {
    if (this.count < 0) this.parse();
    return this.count;
  }

  /** True when this tree's id is the 20 bytes at `at` in `source`. */
  hasId(source: Uint8Array, at: number): boolean {
    const id = this.idSource;
    if (id === undefined) return false;
    const idAt = this.idAt;
    for (let index = 19; index >= 0; index--) if (id[idAt + index] !== source[at + index]) return false;
    return true;
  }

  /**
   * Where the entry called `name` starts in {@link content}, or -1: the bytes are scanned in
   * place for an ASCII name (no table of entries built), others go through {@link indexOf}.
   */
  locate(name: string): number {
    if (!isAscii(name)) {
      const index = this.indexOf(name);
      return index < 0 ? -1 : this.start(index);
    }
    const content = this.content;
    const length = content.length;
    const size = name.length;
    for (let position = 0; position < length; ) {
      let space = position;
      while (space < length && content[space] !== SPACE) space++;
      const nameStart = space + 1;
      let nul = nameStart;
      while (nul < length && content[nul] !== 0) nul++;
      if (nul + 21 > length || space === position || nul === nameStart) throw corruptTree();
      if (nul - nameStart === size) {
        let offset = 0;
        while (offset < size && content[nameStart + offset] === name.charCodeAt(offset)) offset++;
        if (offset === size) return position;
      }
      position = nul + 21;
    }
    return -1;
  }

  /** Where the raw id of the entry starting at `start` (from {@link locate}) begins. */
  idOffsetAt(start: number): number {
    const content = this.content;
    let nul = start;
    while (content[nul] !== 0) nul++;
    return nul + 1;
  }

  /** True when the entry starting at `start` (from {@link locate}) is a directory. */
  isDirectoryAt(start: number): boolean {
    const content = this.content;
    if (content[start] === 0x34) return content[start + 1] === 0x30 && content[start + 5] === SPACE;
    return content[start] === 0x30 && content[start + 1] === 0x34 && content[start + 6] === SPACE;
  }

  /** True when the entries starting at `start` here and `otherStart` in `tree` have the same mode and object. */
  sameEntryAt(start: number, tree: GitTree, otherStart: number): boolean {
    const a = this.content;
    const b = tree.content;
    let offset = 0;
    while (a[start + offset] !== SPACE) {
      if (a[start + offset] !== b[otherStart + offset]) return false;
      offset++;
    }
    if (b[otherStart + offset] !== SPACE) return false;
    const aId = this.idOffsetAt(start);
    const bId = tree.idOffsetAt(otherStart);
    for (let index = 19; index >= 0; index--) if (a[aId + index] !== b[bId + index]) return false;
    return true;
  }

  private start(index: number): number {
    return this.offsets[index * 3] ?? 0;
  }

  private nameStart(index: number): number {
    return this.offsets[index * 3 + 1] ?? 0;
  }

  private nameEnd(index: number): number {
    return this.offsets[index * 3 + 2] ?? 0;
  }

  /** Entry `index`, as an object. */
  entry(index: number): TreeEntry {
    const start = this.start(index);
    const name = this.nameStart(index);
    const nul = this.nameEnd(index);
    const mode = this.content.toString("latin1", start, name - 1);
    return {
      name: this.content.toString("utf8", name, nul),
      mode,
      oid: this.content.toString("hex", nul + 1, nul + 21),
      kind: kindOf(mode),
    };
  }

  /** True when entry `index` is named `name` (compared as bytes, without decoding). */
  private named(index: number, name: string): boolean {
    const start = this.nameStart(index);
    const end = this.nameEnd(index);
    if (end - start !== name.length) return false;
    for (let offset = 0; offset < name.length; offset++)
      if (this.content[start + offset] !== name.charCodeAt(offset)) return false;
    return true;
  }

  /** The index of the entry called `name`, or -1 (small trees are scanned, large ones indexed once). */
  indexOf(name: string): number {
    // The byte scan is exact for ASCII names; others go through the decoded index.
    if (this.size <= 32 && isAscii(name)) {
      for (let index = 0; index < this.size; index++) if (this.named(index, name)) return index;
      return -1;
    }
    if (this.byName === undefined) {
      this.byName = new Map();
      for (let index = 0; index < this.size; index++) {
        this.byName.set(this.content.toString("utf8", this.nameStart(index), this.nameEnd(index)), index);
      }
    }
    return this.byName.get(name) ?? -1;
  }

  /** The entry called `name`, if any. */
  find(name: string): TreeEntry | undefined {
    const index = this.indexOf(name);
    return index < 0 ? undefined : this.entry(index);
  }

  /** The name of entry `index`. */
  nameAt(index: number): string {
    return this.content.toString("utf8", this.nameStart(index), this.nameEnd(index));
  }

  /** The mode of entry `index`, as stored ("100644", "40000", ...). */
  modeAt(index: number): string {
    return this.content.toString("latin1", this.start(index), this.nameStart(index) - 1);
  }

  /** Where the raw id of entry `index` begins in {@link content} (a subtree is read from there in place). */
  entryIdAt(index: number): number {
    return this.nameEnd(index) + 1;
  }

  /** The object id of entry `index`, in hex. */
  oidAt(index: number): string {
    const nul = this.nameEnd(index);
    return this.content.toString("hex", nul + 1, nul + 21);
  }

  /** Every entry, as objects. */
  entries(): TreeEntry[] {
    return Array.from({ length: this.size }, (_, index) => this.entry(index));
  }

  /** True when entry `index` is a directory (a tree). */
  isDirectory(index: number): boolean {
    const start = this.start(index);
    const modeLength = this.nameStart(index) - 1 - start;
    const content = this.content;
    // "40000" is the only directory mode git writes (old trees may say "040000").
    if (modeLength === 6) return content[start] === 0x30 && content[start + 1] === 0x34;
    return modeLength === 5 && content[start] === 0x34 && content[start + 1] === 0x30;
  }

  /**
   * Orders entry `index` of this tree against entry `other` of `tree` as git sorts tree entries
   * (a directory's name compares as if it ended in "/"), for walking two trees side by side.
   */
  compareNames(index: number, tree: GitTree, other: number): number {
    const a = this.content;
    const b = tree.content;
    const aStart = this.nameStart(index);
    const aEnd = this.nameEnd(index);
    const bStart = tree.nameStart(other);
    const bEnd = tree.nameEnd(other);
    const common = Math.min(aEnd - aStart, bEnd - bStart);
    for (let offset = 0; offset < common; offset++) {
      const order = (a[aStart + offset] ?? 0) - (b[bStart + offset] ?? 0);
      if (order !== 0) return order;
    }
    const nextA = aEnd - aStart > common ? (a[aStart + common] ?? 0) : this.isDirectory(index) ? SLASH : 0;
    const nextB = bEnd - bStart > common ? (b[bStart + common] ?? 0) : tree.isDirectory(other) ? SLASH : 0;
    return nextA - nextB;
  }

  /** True when entry `index` here and entry `other` of `tree` have the same mode and object. */
  sameObject(index: number, tree: GitTree, other: number): boolean {
    const a = this.content;
    const b = tree.content;
    const aStart = this.start(index);
    const aNul = this.nameEnd(index);
    const bStart = tree.start(other);
    const bNul = tree.nameEnd(other);
    const modeLength = this.nameStart(index) - 1 - aStart;
    if (modeLength !== tree.nameStart(other) - 1 - bStart) return false;
    for (let offset = 20; offset >= 1; offset--) if (a[aNul + offset] !== b[bNul + offset]) return false;
    for (let offset = 0; offset < modeLength; offset++) if (a[aStart + offset] !== b[bStart + offset]) return false;
    return true;
  }
}
