import { describe, expect, it } from "vitest";
import { planPatch } from "./plan-patch.js";
import { files, updatedContentOf } from "./plan-patch.test-support.js";

/** About 1 MB in 20,000 lines: mostly distinct code lines, with the repeated `}` and blank lines real files have. */
function largeLines(): string[] {
  const lines: string[] = [];
  for (let block = 0; lines.length < 20_000; block++) {
    lines.push(`export function handler${block}(input: Input): Output {`);
    lines.push(`  const value = compute(input, ${block}, "${(block * 7919).toString(36).padStart(8, "0")}");`);
    lines.push(
      "  return { ok: true, value } satisfies Output; // keep the shape stable across all releases of the api, see docs/compatibility.md for the exceptions",
    );
    lines.push("}");
    lines.push("");
  }
  return lines;
}

describe("planPatch on a 1 MB file", () => {
  const lines = largeLines();
  const content = `${lines.join("\n")}\n`;

  it("is about 1 MB in 20,000 lines", () => {
    expect(lines).toHaveLength(20_000);
    expect(content.length).toBeGreaterThan(1_000_000);
  });

  it("applies Codex chunks spread over the file, the last one by tolerant matching", async () => {
    const blocks = [10, 1999, 3998];
    const chunks = blocks.flatMap((block) => [
      `@@ export function handler${block}(input: Input): Output {`,
      `-  const value = compute(input, ${block}, "${(block * 7919).toString(36).padStart(8, "0")}");`,
      `+  const value = computeFast(input, ${block});`,
      "   return { ok: true, value } satisfies Output; // keep the shape stable across all releases of the api, see docs/compatibility.md for the exceptions",
      " }",
    ]);
    chunks.push("@@", "-export function handler3999(input: Input): Output {   ", "+export function last(input: Input): Output {");
    const patch = ["*** Begin Patch", "*** Update File: big.ts", ...chunks, "*** End Patch"].join("\n");
    const result = await planPatch({ kind: "codex", patch }, files({ "big.ts": content }));
    const expected = [...lines];
    for (const block of blocks) expected[block * 5 + 1] = `  const value = computeFast(input, ${block});`;
    expected[3999 * 5] = "export function last(input: Input): Output {";
    expect(updatedContentOf(result)).toBe(`${expected.join("\n")}\n`);
    expect(result.ok && result.summary).toMatchObject({ added: 4, removed: 4 });
  });

  it("applies a unified diff whose line numbers are off, to a CRLF copy", async () => {
    const crlf = `${lines.join("\r\n")}\r\n`;
    const patch = [
      "--- a/big.ts",
      "+++ b/big.ts",
      "@@ -15003,3 +15003,3 @@",
      "   return { ok: true, value } satisfies Output; // keep the shape stable across all releases of the api, see docs/compatibility.md for the exceptions",
      "-}",
      "+} // end of handler3000",
      " ",
      "",
    ].join("\n");
    const expected = [...lines];
    expected[15_003] = "} // end of handler3000";
    expect(updatedContentOf(await planPatch({ kind: "unified", patch }, files({ "big.ts": crlf })))).toBe(
      `${expected.join("\r\n")}\r\n`,
    );
  });

  it("replaces text everywhere with replace_all and refuses it without", async () => {
    const edit = { old_text: "satisfies Output;", new_text: "as Output;" };
    const all = await planPatch(
      { kind: "edits", path: "big.ts", edits: [{ ...edit, replace_all: true }] },
      files({ "big.ts": content }),
    );
    expect(updatedContentOf(all)).toBe(content.replaceAll("satisfies Output;", "as Output;"));
    const one = await planPatch({ kind: "edits", path: "big.ts", edits: [edit] }, files({ "big.ts": content }));
    expect(one.ok === false && one.error).toMatchObject({
      code: "ambiguous_match",
      count: 4000,
      matches: [3, 8, 13, 18, 23, 28, 33, 38, 43, 48],
    });
  });

  it("reports a missing chunk in the large file with the closest line", async () => {
    const patch = [
      "*** Begin Patch",
      "*** Update File: big.ts",
      "@@",
      "-export function handler2500(input: Inptu): Output {",
      "+x",
      "*** End Patch",
    ].join("\n");
    const result = await planPatch({ kind: "codex", patch }, files({ "big.ts": content }));
    expect(result.ok === false && result.error).toMatchObject({
      code: "context_not_found",
      closest: { line: 12_501, text: "export function handler2500(input: Input): Output {" },
    });
  });
});
