import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { Inflater } from "../../src/git/objects/inflater.js";

const bytes = (length: number) => Buffer.from(Array.from({ length }, (_, index) => (index * 7 + (index >> 9)) % 251));

describe("Inflater (one reused zlib handle)", () => {
  it("inflates streams of many sizes with trailing bytes after them, one handle for all", () => {
    const inflater = new Inflater();
    for (const length of [0, 1, 100, 16_384, 70_000, 300_000]) {
      const data = bytes(length);
      const input = Buffer.concat([deflateSync(data), Buffer.from("the next pack entry")]);
      expect(inflater.inflate(input, length, "entry").equals(data)).toBe(true);
    }
    inflater.close();
  });

  it("refuses a wrong recorded size or bad data as corrupt_object, and keeps working afterwards", () => {
    const inflater = new Inflater();
    const data = bytes(5000);
    const input = deflateSync(data);
    for (const size of [4999, 5001, 0]) expect(() => inflater.inflate(input, size, "entry")).toThrow(/recorded size/);
    expect(() => inflater.inflate(Buffer.from("not zlib at all"), 15, "entry")).toThrow(
      expect.objectContaining({ code: "corrupt_object" }),
    );
    // Cut short: the stream ends before its data does.
    expect(() => inflater.inflate(input.subarray(0, input.length >> 1), 5000, "entry")).toThrow(/recorded size/);
    expect(inflater.inflate(input, 5000, "entry").equals(data)).toBe(true);
  });
});
