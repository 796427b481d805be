import { describe, expect, it } from "vitest";
import type { PatchError } from "./patch-error.js";
import type { TextEdit } from "./patch-input.js";
import { planPatch } from "./plan-patch.js";
import { errorOf, files, updatedContentOf } from "./plan-patch.test-support.js";

async function edited(content: string, ...edits: TextEdit[]): Promise<string> {
  return updatedContentOf(await planPatch({ kind: "edits", path: "f.txt", edits }, files({ "f.txt": content })));
}

async function editFailure(content: string, ...edits: TextEdit[]): Promise<PatchError> {
  return errorOf(await planPatch({ kind: "edits", path: "f.txt", edits }, files({ "f.txt": content })));
}

describe("planPatch with edits and replace", () => {
  it("applies edits in order, each on the result of the previous one", async () => {
    const result = await planPatch(
      {
        kind: "edits",
        path: "./src/a.ts",
        edits: [
          { old_text: "const a = 1;", new_text: "const a = 2;" },
          { old_text: "const a = 2;\nexport", new_text: "const a = 2;\nconst b = 3;\nexport" },
        ],
      },
      files({ "src/a.ts": "const a = 1;\nexport {};\n" }),
    );
    expect(result).toEqual({
      ok: true,
      ignoredModes: [],
      changes: [
        {
          type: "update",
          path: "src/a.ts",
          content: "const a = 2;\nconst b = 3;\nexport {};\n",
          previous: "const a = 1;\nexport {};\n",
        },
      ],
      summary: { files: [{ path: "src/a.ts", type: "update", added: 2, removed: 1, hunks: 2 }], added: 2, removed: 1 },
    });
  });

  it("replaces text inside a line and across lines, and every occurrence with replace_all", async () => {
    expect(await edited("let value = old(value);\n", { old_text: "old(", new_text: "fresh(" })).toBe(
      "let value = fresh(value);\n",
    );
    expect(await edited("a a a\n", { old_text: "a", new_text: "b", replace_all: true })).toBe("b b b\n");
    const replaced = await planPatch(
      { kind: "replace", path: "f.txt", find: "x", replace: "y", replace_all: true },
      files({ "f.txt": "x\nx\n" }),
    );
    expect(replaced.ok && replaced.changes).toEqual([{ type: "update", path: "f.txt", content: "y\ny\n", previous: "x\nx\n" }]);
    expect(replaced.ok && replaced.summary.files[0]).toMatchObject({ added: 2, removed: 2, hunks: 2 });
  });

  it("reports an ambiguous old_text with the count and the lines", async () => {
    const error = await editFailure("x = 1\ny = 2\nx = 1\nz\nx = 1\n", { old_text: "x = 1", new_text: "x = 3" });
    expect(error).toMatchObject({ code: "ambiguous_match", path: "f.txt", hunk: 1, count: 3, matches: [1, 3, 5] });
    expect(error.message).toContain("occurs 3 times");
    expect(error.hint).toContain("replace_all");
  });

  it("reports a missing old_text with the closest line and a whitespace hint", async () => {
    const error = await editFailure("function go() {\n    return 42;\n}\n", { old_text: "return 41;", new_text: "return 0;" });
    expect(error).toMatchObject({ code: "no_match", path: "f.txt", hunk: 1, closest: { line: 2, text: "    return 42;" } });
    const indented = await editFailure("function go() {\n    return 42;\n}\n", {
      old_text: "function go() {\n  return 42;",
      new_text: "",
    });
    expect(indented.code).toBe("no_match");
    expect(indented.hint).toContain("lines 1-2 when whitespace is ignored");
    const quoted = await editFailure("say(“hi”)\n", { old_text: 'say("hi")', new_text: "" });
    expect(quoted.hint).toContain("quotes and dashes");
  });

  it("refuses an empty old_text, an empty edit list and a missing file", async () => {
    expect(await editFailure("x\n", { old_text: "", new_text: "y" })).toMatchObject({ code: "empty_old_text", hunk: 1 });
    expect(errorOf(await planPatch({ kind: "edits", path: "f.txt", edits: [] }, files({ "f.txt": "x" })))).toMatchObject({
      code: "patch_parse_error",
    });
    expect(errorOf(await planPatch({ kind: "replace", path: "nope.txt", find: "a", replace: "b" }, files({})))).toMatchObject({
      code: "file_not_found",
      path: "nope.txt",
    });
    expect(errorOf(await planPatch({ kind: "replace", path: "~/x", find: "a", replace: "b" }, files({})))).toMatchObject({
      code: "invalid_path",
    });
  });

  it("is all or nothing: a failing second edit returns no change", async () => {
    const error = await editFailure("a\nb\n", { old_text: "a", new_text: "A" }, { old_text: "missing", new_text: "B" });
    expect(error).toMatchObject({ code: "no_match", hunk: 2 });
  });

  it("matches LF text in a CRLF file and keeps CRLF, also for new lines", async () => {
    expect(await edited("one\r\ntwo\r\nthree\r\n", { old_text: "one\ntwo\n", new_text: "1\n2\n2.5\n" })).toBe(
      "1\r\n2\r\n2.5\r\nthree\r\n",
    );
    expect(await edited("one\r\ntwo\r\n", { old_text: "two", new_text: "two\nand more" })).toBe("one\r\ntwo\r\nand more\r\n");
    expect(await edited("a\nb\r\nc\n", { old_text: "b\nc", new_text: "B\nC" })).toBe("a\nB\r\nC\n");
  });

  it("keeps a missing final newline", async () => {
    expect(await edited("a\nlast", { old_text: "last", new_text: "LAST" })).toBe("a\nLAST");
  });
});
