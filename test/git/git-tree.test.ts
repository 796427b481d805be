import { createHash } from "node:crypto";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { GitTree } from "../../src/git/objects/git-tree.js";

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

/** A full collection (node exposes `gc` once the flag is set, to contexts made after it). */
function collect(): void {
  v8.setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** Bytes held by live ArrayBuffers (Buffers and typed arrays) after full collections (their sweep finishes in the background). */
async function arrayBufferBytes(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    collect();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().arrayBuffers;
}

/** `content` in a Buffer of its own (not a slice of node's shared 8 KiB pool, which one small live Buffer pins). */
function unpooled(content: Buffer): Buffer {
  const own = Buffer.alloc(content.length);
  content.copy(own);
  return own;
}

describe("parsed trees", () => {
  it("reads the same entries, names, order and ids as were written", () => {
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

  it("keeps no memory for trees no longer referenced, whichever trees stay cached", async () => {
    // A long session parses millions of trees and keeps a few (the cache's survivors). Their entry
    // tables were once chunks of a module-wide arena: one kept tree pinned its 64 KiB chunk (11 chunks,
    // 704 KiB, here for 100 trees of ~30 bytes each); what a kept tree holds must be its own size.
    const before = await arrayBufferBytes();
    const kept: GitTree[] = [];
    const ids = Array.from({ length: 50 }, (_, index) => idOf(String(index)));
    let parsed = 0;
    for (let index = 0; index < 60_000; index++) {
      const tree = new GitTree(unpooled(treeContent([{ mode: "100644", name: `f${index}`, id: ids[index % 50] as Buffer }])));
      parsed += tree.size;
      if (index % 600 === 0) kept.push(tree);
    }
    expect(parsed).toBe(60_000);
    const retained = (await arrayBufferBytes()) - before;
    expect(retained).toBeLessThan(128 * 1024);
    // Control: the kept trees are alive and answer.
    expect(kept).toHaveLength(100);
    expect(kept[99]?.nameAt(0)).toBe("f59400");
  });

  it("keeps nothing of a large tree once it is dropped", async () => {
    // A 100 MB hostile tree once left a 50 MB scratch table for the life of the process; 2 MiB here.
    const before = await arrayBufferBytes();
    const id = idOf("large");
    const entries = Array.from({ length: 100_000 }, (_, index) => ({ mode: "100644", name: `entry-${index}`, id }));
    let tree: GitTree | undefined = new GitTree(treeContent(entries));
    expect(tree.size).toBe(100_000);
    expect(tree.nameAt(99_999)).toBe("entry-99999");
    tree = undefined;
    expect((await arrayBufferBytes()) - before).toBeLessThan(1024 * 1024);
  });

  describe("an empty mode or name is refused as corrupt", () => {
    const id = (byte: number) => Buffer.alloc(20, byte);
    // 22- and 23-byte entries: shorter than the 24 bytes the entry table is sized for.
    const emptyMode = (count: number) =>
      Buffer.concat(Array.from({ length: count }, (_, index) => Buffer.concat([Buffer.from(` n${index % 10}\0`), id(index)])));
    const emptyName = (count: number) =>
      Buffer.concat(Array.from({ length: count }, (_, index) => Buffer.concat([Buffer.from(`${index % 10} \0`), id(index)])));
    const both = (count: number) =>
      Buffer.concat(Array.from({ length: count }, (_, index) => Buffer.concat([Buffer.from(" \0"), id(index)])));

    for (const [label, content] of [
      ["a small tree with empty modes", emptyMode(40)],
      ["a tree of 6,500 entries with empty modes", emptyMode(6500)],
      ["a small tree with empty names", emptyName(40)],
      ["a tree of 6,500 entries with empty names", emptyName(6500)],
      ["a tree of 6,500 entries with neither", both(6500)],
      ["a good entry followed by one with an empty mode", Buffer.concat([treeContent(entriesOf(2, 3)), emptyMode(1)])],
    ] as const) {
      it(label, () => {
        for (const read of [(tree: GitTree) => tree.size, (tree: GitTree) => tree.locate("absent")]) {
          let error: unknown;
          try {
            read(new GitTree(content));
          } catch (thrown) {
            error = thrown;
          }
          expect(error).toMatchObject({ code: "corrupt_object" });
        }
      });
    }

    it("control: honest trees of short and many entries parse, and are found by name", () => {
      const short = treeContent(
        Array.from({ length: 6500 }, (_, index) => ({ mode: "1", name: String.fromCharCode(33 + (index % 90)), id: id(index) })),
      );
      const tree = new GitTree(short);
      expect(tree.size).toBe(6500);
      expect(tree.modeAt(6499)).toBe("1");
      expect(tree.oidAt(6499)).toBe(id(6499).toString("hex"));
      expect(tree.locate("!")).toBe(0);
      const entries = entriesOf(3, 6500);
      const honest = new GitTree(treeContent(entries));
      expect(honest.size).toBe(6500);
      expect(honest.find("t3-entry-6499")).toEqual({
        name: "t3-entry-6499",
        mode: "100644",
        oid: entries[6499]?.id.toString("hex"),
        kind: "blob",
      });
    });
  });
});
