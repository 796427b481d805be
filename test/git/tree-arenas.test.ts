import { createHash } from "node:crypto";
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { GitTree } from "../../src/git/objects/git-tree.js";
import { IdArena } from "../../src/git/objects/id-arena.js";
import { OffsetArena } from "../../src/git/objects/offset-arena.js";

interface Entry {
  readonly mode: string;
  readonly name: string;
  readonly id: Buffer;
}

const idOf = (text: string) => createHash("sha1").update(text).digest();

/** A tree object's content, as git stores it: "<mode> <name>\0<20-byte id>" per entry, sorted. */
function treeContent(entries: readonly Entry[]): Buffer {
  return Buffer.concat(entries.flatMap((entry) => [Buffer.from(`${entry.mode} ${entry.name}\u0000`), entry.id]));
}

function entriesOf(tree: number, count: number): Entry[] {
  return Array.from({ length: count }, (_, index) => ({
    mode: index % 3 === 0 ? "40000" : "100644",
    name: `t${tree}-entry-${String(index).padStart(4, "0")}`,
    id: idOf(`${tree}/${index}`),
  }));
}

/** Live objects made by `constructor` (after a full collection), where node can count them. */
function liveCount(kind: new (...args: never[]) => unknown): number | undefined {
  const query = (v8 as { queryObjects?: (c: unknown, o: { format: "count" }) => number }).queryObjects;
  return query?.(kind, { format: "count" });
}

describe("tree entry tables in a shared arena", () => {
  it("gives every parsed tree its own entries, across chunk boundaries and for tables of their own", () => {
    // Small chunks: tables straddle chunk ends; 40 entries (120 slots) exceed a quarter of 256 slots.
    const arena = new OffsetArena(256);
    const stored: { slots: Int32Array; start: number; values: number[] }[] = [];
    for (let table = 0; table < 50; table++) {
      const length = table % 7 === 0 ? 120 : 3 * (1 + (table % 9));
      const scratch = arena.scratchTable(length);
      const values = Array.from({ length }, (_, index) => table * 1000 + index);
      scratch.set(values);
      const start = arena.store(scratch, length);
      stored.push({ slots: arena.lastSlots, start, values });
    }
    for (const { slots, start, values } of stored) expect([...slots.subarray(start, start + values.length)]).toEqual(values);
    // Control: the small tables share chunks; each large one has an array of its own.
    const chunks = new Set(stored.filter((table) => table.values.length < 120).map((table) => table.slots));
    expect(chunks.size).toBeLessThan(10);
    const large = stored.filter((table) => table.values.length === 120);
    expect(new Set(large.map((table) => table.slots)).size).toBe(large.length);
  });

  it("reads the same entries, names, order and ids from trees whose tables share chunks", () => {
    const trees = Array.from({ length: 300 }, (_, tree) => entriesOf(tree, 1 + (tree % 40)));
    // Sizes past a quarter of the default chunk too (1,400 entries).
    trees.push(entriesOf(300, 1400));
    const parsed = trees.map((entries) => new GitTree(treeContent(entries)));
    for (const tree of parsed) expect(tree.size).toBeGreaterThan(0);
    parsed.forEach((tree, index) => {
      const entries = trees[index] as Entry[];
      expect(tree.size).toBe(entries.length);
      entries.forEach((entry, at) => {
        expect(tree.entry(at)).toEqual({
          name: entry.name,
          mode: entry.mode,
          oid: entry.id.toString("hex"),
          kind: entry.mode === "40000" ? "tree" : "blob",
        });
        expect(tree.nameAt(at)).toBe(entry.name);
        expect(tree.isDirectory(at)).toBe(entry.mode === "40000");
        expect(tree.indexOf(entry.name)).toBe(at);
      });
      if (entries.length > 1) expect(tree.compareNames(0, tree, 1)).toBeLessThan(0);
    });
  });

  it("keeps no typed array per parsed tree (one shared chunk per 64 KiB of tables)", () => {
    const before = liveCount(Int32Array);
    if (before === undefined) return; // node < 20.13 cannot count live objects
    const trees = Array.from({ length: 2000 }, (_, tree) => new GitTree(treeContent(entriesOf(tree, 8))));
    for (const tree of trees) expect(tree.size).toBe(8);
    const after = liveCount(Int32Array) ?? 0;
    // Old code: one Int32Array per tree (2,000). Here 2,000 tables of 24 slots fill 3 chunks.
    expect(after - before).toBeLessThan(10);
    // Control: the trees are alive and answer.
    expect(trees[1999]?.nameAt(7)).toBe("t1999-entry-0007");
  });

  it("copies ids 20 bytes at a time into shared chunks", () => {
    const arena = new IdArena(100);
    const copies: { bytes: Uint8Array; at: number; id: Buffer }[] = [];
    const source = Buffer.alloc(60);
    for (let index = 0; index < 12; index++) {
      const id = idOf(String(index));
      id.copy(source, 20);
      const at = arena.copy(source, 20);
      copies.push({ bytes: arena.lastBytes, at, id });
      source.fill(0);
    }
    for (const { bytes, at, id } of copies) expect(Buffer.from(bytes.subarray(at, at + 20)).equals(id)).toBe(true);
    // Five ids per 100-byte chunk: 12 ids in 3 chunks.
    expect(new Set(copies.map((copy) => copy.bytes)).size).toBe(3);
  });
});
