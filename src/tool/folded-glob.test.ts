import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { mcpToolName } from "../mcp/mcp-tool-name.js";
import { AllowedNames } from "./allowed-names.js";
import { allowEntryNames, DeniedNames, denyEntryNames, foldToolName, isToolNameGlob } from "./fold-tool-name.js";
import { FoldedGlob } from "./folded-glob.js";

/** Names as hosts and servers write them: letters of both cases, separators, an accent. */
const nameArbitrary = fc
  .array(fc.constantFrom("a", "b", "D", "_", "-", ".", " ", "é", "e\u0301", "1", "ｅ"), { maxLength: 12 })
  .map((parts) => parts.join(""));

describe("deny entries with a `*` are globs over folded names", () => {
  it("a star matches any run of name characters, the empty run too; literal parts must match whole", () => {
    const glob = new FoldedGlob("mcp_docs_*");
    for (const name of ["mcp_docs_", "mcp_docs_echo", "mcp_docs_get_sum"]) expect(glob.matches(name), name).toBe(true);
    for (const name of ["mcp_doc_echo", "mcp_notes_echo", "xmcp_docs_echo", "mcp_docs"])
      expect(glob.matches(name), name).toBe(false);
    const inner = new FoldedGlob("mcp_**_echo");
    expect(inner.matches("mcp_docs_echo")).toBe(true);
    expect(inner.matches("mcp__echo")).toBe(true);
    expect(inner.matches("mcp_docs_echo_2")).toBe(false);
    expect(new FoldedGlob("*").matches("")).toBe(true);
  });

  it("some extension of a prefix matches when the prefix is read without a dead end", () => {
    const glob = new FoldedGlob("mcp_long_*_echo");
    expect(glob.matchesSomeExtension("mcp_long_vvv")).toBe(true);
    expect(glob.matchesSomeExtension("mcp_lo")).toBe(true);
    expect(glob.matchesSomeExtension("mcp_short_vvv")).toBe(false);
  });

  it("a pattern of many stars against a long name answers at once (no backtracking)", () => {
    const glob = new FoldedGlob(`${"a*".repeat(30)}b`);
    const started = process.hrtime.bigint();
    expect(glob.matches("a".repeat(5_000))).toBe(false);
    // A backtracking matcher takes far longer than this for 30 stars on 5,000 characters.
    expect(Number(process.hrtime.bigint() - started) / 1e6).toBeLessThan(2_000);
  });

  it("denyEntryNames and DeniedNames fold the parts: the server's spelling, a host tool, a fullwidth star", () => {
    const entries = ["mcp_Docs_*", "mcp_*_Échö", "mcp_notes_ｇｅｔ＊"];
    const denied = new DeniedNames(entries);
    for (const name of ["mcp_docs_echo", "mcp_docs_Write-File", "mcp_other_echo", "mcp_notes_get_sum"]) {
      expect(denied.denies(name), name).toBe(true);
      expect(
        entries.some((entry) => denyEntryNames(entry, name)),
        name,
      ).toBe(true);
    }
    for (const name of ["mcp_notes_echo_2", "mcp_notes_add", "bash", "mcp_doc_echoes"]) {
      expect(denied.denies(name), name).toBe(false);
      expect(
        entries.some((entry) => denyEntryNames(entry, name)),
        name,
      ).toBe(false);
    }
  });

  it("a hashed name is denied when a name keeping its first characters would match (fails closed)", () => {
    const longEcho = mcpToolName(`Long-${"v".repeat(60)}`, "echo");
    const longSum = mcpToolName(`Long-${"v".repeat(60)}`, "get-sum");
    for (const name of [longEcho, longSum]) {
      expect(new DeniedNames(["mcp_long_*"]).denies(name), name).toBe(true);
      // The tail past the cut is a hash: `*_echo` cannot tell which tool, so it denies both.
      expect(denyEntryNames("*_echo", name), name).toBe(true);
    }
    expect(new DeniedNames(["mcp_short_*"]).denies(longEcho)).toBe(false);
    expect(new DeniedNames(["*_echo"]).denies("mcp_docs_get_sum")).toBe(false);
  });

  it("property: an entry without `*` denies exactly what it denied as a plain entry", () => {
    fc.assert(
      fc.property(nameArbitrary, nameArbitrary, (entry, name) => {
        fc.pre(!isToolNameGlob(entry));
        const plain = name === entry || foldToolName(name) === foldToolName(entry) || denyEntryNames(entry, name);
        expect(new FoldedGlob(foldToolName(entry)).matches(foldToolName(name))).toBe(foldToolName(entry) === foldToolName(name));
        expect(new DeniedNames([entry]).denies(name)).toBe(plain);
      }),
      { numRuns: 500 },
    );
  });

  it("property: a glob denies every name made by filling its stars with name characters", () => {
    fc.assert(
      fc.property(
        fc.array(nameArbitrary, { minLength: 1, maxLength: 4 }),
        fc.array(nameArbitrary, { maxLength: 4 }),
        (parts, fills) => {
          const entry = parts.join("*");
          const name = parts.map((part, index) => (index === 0 ? part : `${fills[index - 1] ?? ""}${part}`)).join("");
          expect(new DeniedNames([entry]).denies(name), `${entry} ${name}`).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("an allow entry with `*` stays exact: it never folds onto a registered name", () => {
    expect(allowEntryNames("mcp_docs*echo", "mcp_docs_echo")).toBe(false);
    expect(new AllowedNames(["mcp_docs*echo", "mcp_docs_*"]).has("mcp_docs_echo")).toBe(false);
    expect(new AllowedNames(["mcp_docs_echo"]).narrow(["mcp_docs*echo"])).toEqual([]);
    // Control: the same entry without the star allows the tool by folding.
    expect(allowEntryNames("mcp_Docs-echo", "mcp_docs_echo")).toBe(true);
  });
});
