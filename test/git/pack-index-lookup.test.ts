import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { PackIndex } from "../../src/git/objects/pack-index.js";

/**
 * Lookups in pack indexes far larger than the test repositories' (whose buckets hold a few ids
 * each): tens of thousands of uniform ids, where a lookup walks from its interpolated guess, and
 * buckets whose ids are not uniform at all, where the guess is far off and it bisects.
 */

/** A version 2 (or 1) index of `ids` (sorted here), the object at row `r` at offset 12 + 7r. */
function indexOf(ids: Buffer[], version: 1 | 2): { index: PackIndex; offsets: Map<string, number> } {
  const sorted = [...ids].sort(Buffer.compare);
  const count = sorted.length;
  const fanout = Buffer.alloc(256 * 4);
  const perByte = new Uint32Array(256);
  for (const id of sorted) perByte[id[0] as number] = (perByte[id[0] as number] as number) + 1;
  let total = 0;
  for (let byte = 0; byte < 256; byte++) {
    total += perByte[byte] as number;
    fanout.writeUInt32BE(total, byte * 4);
  }
  const offsets = new Map(sorted.map((id, row) => [id.toString("hex"), 12 + 7 * row]));
  const word = (value: number) => {
    const bytes = Buffer.alloc(4);
    bytes.writeUInt32BE(value);
    return bytes;
  };
  const parts =
    version === 2
      ? [
          Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]),
          fanout,
          ...sorted,
          Buffer.alloc(count * 4),
          ...sorted.map((_, row) => word(12 + 7 * row)),
          Buffer.alloc(40),
        ]
      : [fanout, ...sorted.flatMap((id, row) => [word(12 + 7 * row), id]), Buffer.alloc(40)];
  return { index: PackIndex.parse(Buffer.concat(parts)), offsets };
}

/** Real hashes: ids spread as uniformly as a pack's. */
function uniformIds(count: number, seed: string): Buffer[] {
  return Array.from({ length: count }, (_, at) => createHash("sha1").update(`${seed}:${at}`).digest());
}

/**
 * Ids of one first byte that interpolation guesses badly: most crowd the bottom of the head
 * range, a few sit at its top, and runs share their first four bytes (only the rest orders them).
 */
function skewedIds(): Buffer[] {
  const ids: Buffer[] = [];
  for (let at = 0; at < 3000; at++) {
    const id = createHash("sha1").update(`skewed:${at}`).digest();
    id[0] = 0x42;
    if (at % 500 === 0) {
      id[1] = 0xff;
    } else {
      id[1] = 0;
      id[2] = at % 3 === 0 ? 0 : (id[2] as number) & 0x0f;
      if (at % 3 === 0) id[3] = 7;
    }
    ids.push(id);
  }
  return ids;
}

/** Ids next to `id` that are not in the index (when they are not): the same but for the last byte, or the fourth. */
function neighbours(id: Buffer): Buffer[] {
  return [19, 3].flatMap((byte) =>
    [-1, 1].map((step) => {
      const near = Buffer.from(id);
      near[byte] = ((near[byte] as number) + step + 256) % 256;
      return near;
    }),
  );
}

function expectEveryLookup(ids: Buffer[], version: 1 | 2): void {
  const { index, offsets } = indexOf(ids, version);
  const wrong: string[] = [];
  for (const id of ids) {
    // Read in place, as from a tree's content: at an offset inside a larger buffer.
    const source = Buffer.concat([Buffer.alloc(5, 0xaa), id, Buffer.alloc(3)]);
    if (index.offsetOf(source, 5) !== offsets.get(id.toString("hex"))) wrong.push(`${id.toString("hex")} present`);
    for (const near of neighbours(id)) {
      const expected = offsets.get(near.toString("hex"));
      if (index.offsetOf(near) !== expected)
        wrong.push(`${near.toString("hex")} ${expected === undefined ? "absent" : "present"}`);
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
}

describe("PackIndex.offsetOf on large indexes", () => {
  for (const version of [1, 2] as const) {
    it(`finds each of 20,000 uniform ids at its offset and none of their absent neighbours (version ${version})`, () => {
      expectEveryLookup(uniformIds(20_000, `v${version}`), version);
    });

    it(`finds ids a uniform guess misses by far, runs of one first four bytes included (version ${version})`, () => {
      expectEveryLookup([...skewedIds(), ...uniformIds(2000, "around")], version);
    });
  }
});
