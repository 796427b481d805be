import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { looksBinary } from "./text-content.js";

/** The rule by its definition: NUL, or what a fatal streaming UTF-8 decoder refuses, in the first 8 KiB. */
function byDecoder(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return true;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
    return false;
  } catch {
    return true;
  }
}

const encoded = (text: string) => new Uint8Array(Buffer.from(text));

describe("looksBinary", () => {
  it("text, including a character cut by the sample's end or the file's, is not binary", () => {
    expect(looksBinary(encoded("plain ascii\n"))).toBe(false);
    expect(looksBinary(encoded("déjà vu — “quotes” 😀\n"))).toBe(false);
    // "€" is 3 bytes: the 8 KiB sample ends inside it.
    expect(looksBinary(encoded(`${"a".repeat(8191)}€ and more`))).toBe(false);
    expect(looksBinary(encoded("ends inside 😀").subarray(0, -2))).toBe(false);
  });

  it("a NUL byte, invalid bytes, an overlong form or a surrogate is binary", () => {
    expect(looksBinary(new Uint8Array([0x61, 0x00, 0x62]))).toBe(true);
    expect(looksBinary(new Uint8Array([0x61, 0xff, 0x62]))).toBe(true);
    expect(looksBinary(new Uint8Array([0x61, 0xff]))).toBe(true);
    expect(looksBinary(new Uint8Array([0xc0, 0xaf]))).toBe(true);
    expect(looksBinary(new Uint8Array([0xed, 0xa0, 0x80]))).toBe(true);
    expect(looksBinary(new Uint8Array([0x61, 0xe0, 0x80]))).toBe(true);
  });

  it("agrees with the fatal streaming decoder on any bytes (property)", () => {
    const utf8Piece = fc.string({ unit: "binary", maxLength: 6 }).map((text) => [...Buffer.from(text)]);
    const rawPiece = fc.array(fc.integer({ min: 1, max: 255 }), { maxLength: 4 });
    const bytes = fc
      .array(fc.oneof({ weight: 4, arbitrary: utf8Piece }, { weight: 1, arbitrary: rawPiece }), { maxLength: 40 })
      .chain((pieces) => fc.nat(3).map((cut) => pieces.flat().slice(0, Math.max(0, pieces.flat().length - cut))))
      .map((values) => new Uint8Array(values));
    fc.assert(
      fc.property(bytes, (sample) => looksBinary(sample) === byDecoder(sample)),
      { numRuns: 2000 },
    );
  });
});
