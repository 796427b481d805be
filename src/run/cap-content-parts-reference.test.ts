/**
 * A cut of a long text part condensed it up to four times, each scanning the whole text for its
 * line breaks (30 parts of 1 MB held the event loop 188 ms); the line breaks are now counted once
 * per part. The output must be exactly what the old algorithm gave: it is kept as the reference
 * (test/support/old-cap-content-parts.ts) and compared on random inputs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { capContentParts as oldCapContentParts } from "../../test/support/old-cap-content-parts.js";
import type { ToolContentPart } from "../tool/tool-content.js";
import { capContentParts } from "./cap-content-parts.js";

/** Text with line breaks at random places, and now and then an emoji (a surrogate pair). */
const text = fc
  .array(fc.oneof(fc.constantFrom("\n", "\n\n", "😀", "x"), fc.string({ maxLength: 40 }), fc.constant("y".repeat(500))), {
    maxLength: 60,
  })
  .map((pieces) => pieces.join(""));

const part = fc.oneof(
  { weight: 8, arbitrary: text.map((value): ToolContentPart => ({ type: "text", text: value })) },
  { weight: 1, arbitrary: fc.constant<ToolContentPart>({ type: "image", data: "aGVsbG8=", mediaType: "image/png" }) },
);

describe("capContentParts against the old algorithm", () => {
  it("gives exactly the old output on random parts and thresholds", () => {
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), fc.integer({ min: 1, max: 20_000 }), (parts, threshold) => {
        const limits = { condenseThreshold: threshold, maxBinaryBytes: 1_000_000 };
        expect(capContentParts(parts, limits)).toEqual(oldCapContentParts(parts, limits));
      }),
      { numRuns: 400 },
    );
  });

  it("gives exactly the old output for many long parts with many lines", () => {
    const parts: ToolContentPart[] = Array.from({ length: 12 }, (_, index) => ({
      type: "text",
      text: `${"line of output\n".repeat(2_000 + index * 37)}${"z".repeat(index * 101)}`,
    }));
    for (const threshold of [500, 4_000, 20_000, 60_000]) {
      const limits = { condenseThreshold: threshold, maxBinaryBytes: 1_000_000 };
      expect(capContentParts(parts, limits)).toEqual(oldCapContentParts(parts, limits));
    }
  });
});
