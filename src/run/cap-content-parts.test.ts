/**
 * The total text budget of a result's text parts (`capContentParts`): text beyond the budget is
 * what is removed, not a fixed reserve, and small `condenseThreshold`s still leave text.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolContentPart } from "../tool/tool-content.js";
import { capContentParts } from "./cap-content-parts.js";

const OVERHEAD = 32;
const MARKER =
  /\n\[\.\.\. \d+ characters \(\d+ lines\) omitted; showing the first \d+ and the last \d+ characters \.\.\.\]\n|\[… \d+ more\]/;
const CLOSING = /^\[\d+ more text parts( \(\d+ characters\))? omitted(: a result's text may total at most \d+ characters)?\]$/;

function texts(parts: readonly ToolContentPart[]): string[] {
  return parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
}

function cap(lengths: readonly number[], threshold: number): string[] {
  // Each part its own letter, so order and origin show in the output.
  const parts = lengths.map((length, i) => ({ type: "text" as const, text: String.fromCharCode(97 + (i % 26)).repeat(length) }));
  return texts(capContentParts(parts, { condenseThreshold: threshold, maxBinaryBytes: 1_000_000 }));
}

describe("capContentParts: the text budget across parts", () => {
  it("one character over the budget cuts one part by that character and its marker, not both parts by hundreds", () => {
    // 9,985 + 32 + 9,984 + 32 = 20,033: one over the 20,032 two parts may cost at 20,000.
    const out = cap([9_985, 9_984], 20_000);
    expect(out).toHaveLength(2);
    expect(out[1]).toBe("b".repeat(9_984));
    // Exactly 9,984 but for a few characters when the marker's numbers change width.
    expect(out[0]?.length).toBeLessThanOrEqual(9_984);
    expect(out[0]?.length).toBeGreaterThanOrEqual(9_978);
    const kept = out[0]?.replace(MARKER, "") ?? "";
    expect(kept).toMatch(/^a+$/);
    expect(9_985 - kept.length).toBeLessThanOrEqual(1 + 100);
  });

  it("positive control: at the budget exactly, both parts arrive whole", () => {
    expect(cap([9_984, 9_984], 20_000)).toEqual(["a".repeat(9_984), "b".repeat(9_984)]);
  });

  it("a small threshold (100) keeps text of two 60-character parts instead of one 'omitted' line", () => {
    const out = cap([60, 60], 100);
    expect(out.join("").length).toBeLessThanOrEqual(100);
    expect(out[0]).toMatch(/^a{10,}/);
    expect(out[1]).toMatch(/^b{10,}/);
  });

  it("a small threshold with many parts keeps some text and a short closing line", () => {
    const out = cap([60, 60, 60, 60, 60], 150);
    expect(out.join("").length).toBeLessThanOrEqual(150);
    expect(out[0]).toMatch(/^a{10,}/);
    expect(out.at(-1)).toMatch(CLOSING);
  });

  it("dropping empty parts adds a closing line no longer than the room kept for it (fast-check found 465 of 464)", () => {
    // The room was reserved for the short form of the longest line (4 parts, 373 characters);
    // the line for the 2 empty parts actually dropped came out in the longer full form.
    const out = cap([157, 216, 0, 0], 464);
    expect(out.join("").length).toBeLessThanOrEqual(464);
    expect(out.slice(0, 2)).toEqual(["a".repeat(157), "b".repeat(216)]);
    expect(out.at(-1)).toMatch(CLOSING);
  });

  it("property: total within the threshold, unchanged when within it, no needless loss, order kept", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 2, maxLength: 60 }),
        fc.integer({ min: 100, max: 50_000 }),
        (lengths, threshold) => {
          const out = cap(lengths, threshold);
          const total = out.reduce((sum, text) => sum + text.length, 0);
          expect(total).toBeLessThanOrEqual(threshold);
          const cost = lengths.reduce((sum, length) => sum + Math.min(length, threshold) + OVERHEAD, 0);
          if (cost <= threshold + OVERHEAD) {
            expect(out).toEqual(lengths.map((length, i) => String.fromCharCode(97 + (i % 26)).repeat(length)));
            return;
          }
          // Order: each kept part's letters come from a later input part than the one before.
          const closing = out.at(-1)?.match(CLOSING) ? (out.at(-1) as string) : "";
          const kept = closing === "" ? out : out.slice(0, -1);
          let markers = 0;
          let keptChars = 0;
          for (const text of kept) {
            const bare = text.replace(MARKER, "");
            markers += text.length - bare.length;
            keptChars += bare.length;
            expect(bare).toMatch(/^([a-z])\1*$|^$/);
          }
          const letters = kept.map((text) => text.replace(MARKER, "").charAt(0)).join("");
          const inOrder = lengths.map((length, i) => (length > 0 ? String.fromCharCode(97 + (i % 26)) : "")).join("");
          expect(isSubsequence(letters, inOrder)).toBe(true);
          // No needless loss: what is kept is the budget less wrappers, markers, the closing line,
          // per cut part one rounding character and two for its marker's numbers changing width, and
          // one part that could not hold even a marker.
          const wrappers = OVERHEAD * (out.length - 1);
          const cut = kept.filter((text) => MARKER.test(text)).length;
          const slack = 3 * cut + (closing === "" ? 0 : OVERHEAD + 16 + String(threshold).length);
          const all = lengths.reduce((sum, length) => sum + length, 0);
          expect(keptChars).toBeGreaterThanOrEqual(Math.min(all, threshold - wrappers - markers - closing.length - slack));
        },
      ),
      { numRuns: 300 },
    );
  });
});

function isSubsequence(sub: string, of: string): boolean {
  let at = 0;
  for (const char of sub) {
    at = of.indexOf(char, at);
    if (at === -1) return false;
    at++;
  }
  return true;
}
