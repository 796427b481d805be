import { describe, expect, it } from "vitest";
import { cpuMsOf } from "../../../../test/support/cpu-time.js";
import { applyTextEdits } from "./apply-text-edits.js";
import type { PatchError } from "./patch-error.js";

function failure(content: string, oldText: string): PatchError {
  const outcome = applyTextEdits(content, [{ old_text: oldText, new_text: "b" }], "f");
  if (outcome.ok) throw new Error("expected a failure");
  return outcome.error;
}

describe("applyTextEdits: counting occurrences", () => {
  // Counting overlapping occurrences by stepping indexOf one character at a time compared the
  // text again at every start: 16.8 s of CPU for the first, 755 ms for the second (old code).
  it("counts overlapping occurrences of a long periodic text in linear time", () => {
    const runs = cpuMsOf(() => failure("a".repeat(400_000), "a".repeat(100_000)));
    expect(runs.result).toMatchObject({ code: "ambiguous_match", count: 300_001, matches: [1] });
    expect(runs.result.message).toContain("occurs 300001 times in f, overlapping (line 1, ...)");
    expect(runs.cpuMs).toBeLessThan(400);
    const line = "0,0,0\n";
    const csv = cpuMsOf(() => failure(line.repeat(50_000), line.repeat(5_000)));
    expect(csv.result).toMatchObject({ code: "ambiguous_match", count: 45_001, matches: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] });
    expect(csv.cpuMs).toBeLessThan(400);
  });

  it("names each line once in details.matches, as the message does", () => {
    const error = failure("aaa\n", "aa");
    expect(error).toMatchObject({ code: "ambiguous_match", count: 2, matches: [1] });
    expect(error.message).toContain("occurs 2 times in f, overlapping (line 1)");
    const twoLines = failure("aa\nxaa\n", "aa");
    expect(twoLines).toMatchObject({ count: 2, matches: [1, 2] });
    expect(twoLines.message).not.toContain("overlapping");
  });

  it("positive controls: a unique text with a border edits; replace_all replaces left to right", () => {
    expect(applyTextEdits("abab-x", [{ old_text: "abab", new_text: "c" }], "f")).toMatchObject({
      ok: true,
      value: { content: "c-x" },
    });
    expect(applyTextEdits("a".repeat(9), [{ old_text: "aa", new_text: "b", replace_all: true }], "f")).toMatchObject({
      ok: true,
      value: { content: "bbbba", hunks: 4 },
    });
    expect(applyTextEdits("ab\r\nab\r\nab\r\n", [{ old_text: "ab\nab", new_text: "z" }], "f")).toMatchObject({
      ok: false,
      error: { code: "ambiguous_match", count: 2, matches: [1, 2] },
    });
  });
});
