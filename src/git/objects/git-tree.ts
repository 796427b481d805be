import { CatalogError } from "agent-tool-catalog";
import type { TreeEntry, TreeEntryKind } from "./parse-objects.js";

const SPACE = 0x20;
const SLASH = 0x2f;

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
  /** Per entry: where it starts, where its name starts, where its name ends (the NUL). */
  private readonly offsets: Int32Array;
  /** Number of entries. */
  readonly size: number;
  private byName: Map<string, number> | undefined;

  constructor(
    /** The tree's stored content. */
    readonly content: Buffer,
    /** Its own id, 20 raw bytes, when it was read by raw id (what a cache keyed by part of the id checks). */
    readonly id?: Uint8Array,
  ) {
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
      if (nul + 21 > length) throw new CatalogError("corrupt_object", "A tree object is corrupt.");
      offsets[count * 3] = position;
      offsets[count * 3 + 1] = space + 1;
      offsets[count * 3 + 2] = nul;
      position = nul + 21;
    }
    this.offsets = offsets;
    this.size = count;
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
    if (this.size <= 32 && /^[\x20-\x7e]*$/.test(name)) {
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

  /** True when this tree's {@link id} is the 20 bytes at `at` in `source`. */
  hasId(source: Uint8Array, at: number): boolean {
    const id = this.id;
    if (id === undefined) return false;
    for (let index = 19; index >= 0; index--) if (id[index] !== source[at + index]) return false;
    return true;
  }

  /** Where the raw 20-byte id of entry `index` starts in {@link content}. */
  idOffset(index: number): number {
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
