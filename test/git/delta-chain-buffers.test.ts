/**
 * A delta chain whose links the base cache would not keep is built in two reused buffers, not in a
 * fresh one per link: a fresh 64 MiB buffer paged in 16,384 new pages at every link (~0.3 s of
 * system time on a VM), 6.6 of the 7 CPU-s of a 24-link read. Each link here shifts its base and
 * writes a marker of its own in front, so a link built over its own base would be corrupt; the
 * git CLI reads the same pack as the oracle.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { LruCache } from "../../src/git/lru-cache.js";
import { FilePool } from "../../src/git/objects/file-pool.js";
import type { GitObject } from "../../src/git/objects/git-object.js";
import { Inflater } from "../../src/git/objects/inflater.js";
import { baseWeight, PackFile } from "../../src/git/objects/pack-file.js";
import { PackIndex } from "../../src/git/objects/pack-index.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { BLOB, blobId, copy, delta, type HostileEntry, insert, OFS_DELTA, writeHostilePack } from "./support/hostile-pack.js";

const gitCapability = capability("git");

/** Every object of the chain: more than the test cache keeps (half its 64 KiB budget). */
const SIZE = 256 * 1024;
const LINKS = 24;

/** The base, then each link: a marker of its own, then all but the marker's length of its base. */
function chain(): { readonly entries: HostileEntry[]; readonly tip: Buffer } {
  let content = Buffer.alloc(SIZE);
  // Text, so git's output compares as a string.
  for (let at = 0; at < SIZE; at++) content[at] = 97 + ((at * 7) % 26);
  const entries: HostileEntry[] = [{ oid: blobId(content), kind: BLOB, data: content }];
  for (let link = 1; link <= LINKS; link++) {
    const marker = Buffer.from(`link ${String(link).padStart(3, "0")}`);
    const instructions = [...insert(marker)];
    for (let at = 0; at < SIZE - marker.length; at += 0x10000) {
      instructions.push(...copy(at, Math.min(0x10000, SIZE - marker.length - at)));
    }
    content = Buffer.concat([marker, content.subarray(0, SIZE - marker.length)]);
    entries.push({ oid: blobId(content), kind: OFS_DELTA, data: delta(SIZE, SIZE, instructions), base: link - 1 });
  }
  return { entries, tip: content };
}

describe.skipIf(gitCapability.missing)(gitCapability.label("delta chains built in reused buffers"), () => {
  const directories: string[] = [];
  afterAll(() => {
    for (const directory of directories) removeDirectory(directory);
  });

  it("builds a 24-link chain of 256 KiB objects in 3 buffers (2 reused, the tip's own), as git reads it", () => {
    const fixture = FixtureRepository.create("delta-chain-buffers");
    directories.push(fixture.directory);
    const { entries, tip } = chain();
    const objects = path.join(fixture.directory, ".git", "objects");
    const offsets = writeHostilePack(objects, entries);
    const packDirectory = path.join(objects, "pack");
    const name = readdirSync(packDirectory).find((file) => file.endsWith(".idx")) ?? "";
    const index = PackIndex.parse(readFileSync(path.join(packDirectory, name)));
    const cache = new LruCache<number, GitObject>(64 * 1024, (object) => baseWeight(object.content.length));
    // Control: the cache would keep none of the chain's objects, so none is read from it.
    expect(cache.keeps(baseWeight(SIZE))).toBe(false);
    const pack = new PackFile(
      path.join(packDirectory, name.replace(/\.idx$/, ".pack")),
      index,
      cache,
      () => {
        throw new Error("no ref deltas here");
      },
      new FilePool(unconfinedReader()),
      new Inflater(),
    );
    const object = pack.readAt(offsets[LINKS] as number);
    expect(object.type).toBe("blob");
    expect(object.content.equals(tip)).toBe(true);
    expect(git(fixture.directory, ["cat-file", "blob", blobId(tip)])).toBe(tip.toString());
    // The base and 23 links in two buffers, the tip in its own (a buffer per object: 25).
    expect(pack.chainBuffers).toBe(3);
    pack.close();
  });
});
