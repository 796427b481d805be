/**
 * `\w`, `\d`, `\b` (and their negations) mean Unicode in ripgrep (`é` is a word character, `٣` a
 * digit) and ASCII in JavaScript's `u` regular expressions: `^\w+$` matched `éé` with ripgrep and
 * not with the JavaScript engine. The JavaScript engine now runs them with ripgrep's meaning.
 * Each pattern is compared with the `rg` CLI's own lines; controls: ASCII lines, an escaped
 * backslash (`\\w` is a backslash and a `w`).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withUnicodeClasses } from "../../src/tools/fs/grep-unicode-classes.js";
import { capability } from "../support/capabilities.js";
import { grepBothEngines } from "./support/grep-both-engines.js";

const ripgrep = capability("ripgrep");

describe("the JavaScript engine's \\w, \\d and \\b", () => {
  it("rewrites the class escapes and nothing escaped or inside other escapes", () => {
    expect(withUnicodeClasses("\\\\w")).toBe("\\\\w");
    expect(withUnicodeClasses("\\p{L}\\u{41}")).toBe("\\p{L}\\u{41}");
    expect(withUnicodeClasses("[\\b]")).toBe("[\\b]");
    expect(new RegExp(withUnicodeClasses("^[\\w-]+$"), "u").test("é-x")).toBe(true);
    expect(new RegExp(withUnicodeClasses("^\\D\\d$"), "u").test("a٣")).toBe(true);
  });

  describe.skipIf(ripgrep.missing)(ripgrep.label("against rg"), () => {
    let workspace: string;
    beforeAll(async () => {
      workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-unicode-"));
      await writeFile(
        path.join(workspace, "u.txt"),
        ["éé", "٣٤", "abc", "\\w", "a é", "-x", "x_y", "über-all", "12", "x٣"].join("\n"),
      );
    });
    afterAll(async () => {
      await rm(workspace, { recursive: true, force: true });
    });

    for (const pattern of [
      "^\\w+$",
      "^\\d+$",
      "\\bé",
      "é\\b",
      "^[\\w]+$",
      "\\\\w",
      "^\\W",
      "\\Bé",
      "r\\b",
      "\\D\\d",
      "^\\w \\w$",
      // \W inside a class: JavaScript's means ASCII non-word characters (é matched it).
      "^[\\W]",
      "^[\\W\\d]+$",
      "^[^\\W]+$",
      "^[^\\W_]+$",
      "[\\Wa]",
    ]) {
      it(`${pattern}: the rg CLI's lines`, async () => {
        const { expected, actual, printed } = await grepBothEngines(workspace, pattern);
        expect(actual, printed).toEqual(expected);
      });
    }
  });
});
