import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { countLines } from "./file-content.js";
import { PiecedBytes } from "./pieced-bytes.js";

const pieces = fc.array(
  fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
  { maxLength: 8 },
);

describe("PiecedBytes: a patched file's bytes left in pieces", () => {
  it("is the bytes of its pieces joined: equal, line count, transient copy, whole buffer", () => {
    fc.assert(
      fc.property(pieces, fc.nat(), fc.integer({ min: 1, max: 255 }), (parts, at, flip) => {
        const joined = Buffer.concat(parts);
        const content = new PiecedBytes(parts);
        expect(content.byteLength).toBe(joined.byteLength);
        expect(content.equals(joined)).toBe(true);
        expect(content.countLines()).toBe(countLines(joined));
        expect(Buffer.from(content.transient()).equals(joined)).toBe(true);
        expect(content.bytes().equals(joined)).toBe(true);
        if (joined.byteLength === 0) return;
        // One byte different, or one byte more or less: not equal.
        const other = Buffer.from(joined);
        const index = at % other.byteLength;
        other[index] = (other[index] as number) ^ flip;
        expect(new PiecedBytes(parts).equals(other)).toBe(false);
        expect(new PiecedBytes(parts).equals(joined.subarray(1))).toBe(false);
        expect(new PiecedBytes(parts).equals(Buffer.concat([joined, Buffer.from([0])]))).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("gives a transient copy valid until the next one (one buffer reused), and its whole bytes kept", () => {
    const first = new PiecedBytes([Buffer.from("one\n"), Buffer.from("two\n")]);
    const second = new PiecedBytes([Buffer.from("six\n"), Buffer.from("ten\n")]);
    const copy = first.transient();
    expect(copy.toString()).toBe("one\ntwo\n");
    second.transient();
    // The shared buffer now holds the second content: never kept.
    expect(copy.toString()).toBe("six\nten\n");
    const whole = first.bytes();
    expect(first.bytes()).toBe(whole);
    expect(first.transient()).toBe(whole);
    expect(whole.toString()).toBe("one\ntwo\n");
  });

  it("gives the right transient bytes past the shared buffer's first size and past the size it keeps", () => {
    for (const size of [64 * 1024 + 1, 300 * 1024, 5 * 1024 * 1024]) {
      const whole = Buffer.alloc(size, 0x61);
      whole[size - 1] = 0x0a;
      const content = new PiecedBytes([whole.subarray(0, 1000), whole.subarray(1000, size - 7), whole.subarray(size - 7)]);
      expect(content.transient().equals(whole)).toBe(true);
      expect(content.countLines()).toBe(1);
    }
  });
});
