import { describe, expect, it } from "vitest";
import { textOf } from "./file-content.js";
import { planPatch } from "./plan-patch.js";
import { changesOf, errorOf, files } from "./plan-patch.test-support.js";

function codex(...lines: string[]): { kind: "codex"; patch: string } {
  return { kind: "codex", patch: ["*** Begin Patch", ...lines, "*** End Patch", ""].join("\n") };
}

/** The content one update leaves at `path`. */
async function updated(content: string, ...lines: string[]): Promise<string> {
  const [change] = changesOf(await planPatch(codex("*** Update File: f.txt", ...lines), files({ "f.txt": content })));
  if (change?.type !== "update") throw new Error(`expected an update, got ${change?.type}`);
  return textOf(change.content);
}

describe("planPatch with the Codex format", () => {
  it("adds, deletes and updates files in one patch, with a summary", async () => {
    const reader = files({ "modify.txt": "line1\nline2\n", "delete.txt": "obsolete\n" });
    const result = await planPatch(
      codex(
        "*** Add File: nested/new.txt",
        "+created",
        "*** Delete File: delete.txt",
        "*** Update File: modify.txt",
        "@@",
        "-line2",
        "+changed",
      ),
      reader,
    );
    expect(result).toEqual({
      ok: true,
      ignoredModes: [],
      changes: [
        { type: "add", path: "nested/new.txt", content: "created\n" },
        { type: "delete", path: "delete.txt", previous: "obsolete\n" },
        { type: "update", path: "modify.txt", content: "line1\nchanged\n", previous: "line1\nline2\n" },
      ],
      summary: {
        files: [
          { path: "nested/new.txt", type: "add", added: 1, removed: 0, hunks: 0 },
          { path: "delete.txt", type: "delete", added: 0, removed: 1, hunks: 0 },
          { path: "modify.txt", type: "update", added: 1, removed: 1, hunks: 1 },
        ],
        added: 2,
        removed: 2,
      },
    });
    expect(reader.reads).toEqual(["nested/new.txt", "delete.txt", "modify.txt"]);
  });

  it("applies several chunks in order, each searched after the previous one", async () => {
    const content = "line1\nline2\nline3\nline4\n";
    expect(await updated(content, "@@", "-line2", "+changed2", "@@", "-line4", "+changed4")).toBe(
      "line1\nchanged2\nline3\nchanged4\n",
    );
    expect(await updated("x\nsame\nx\nsame\n", "@@", " x", "-same", "+first", "@@", " x", "-same", "+second")).toBe(
      "x\nfirst\nx\nsecond\n",
    );
  });

  it("moves a file to a new directory with its new content", async () => {
    const result = await planPatch(
      codex("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-old content", "+new content"),
      files({ "old/name.txt": "old content\n", "old/other.txt": "keep\n" }),
    );
    expect(changesOf(result)).toEqual([
      {
        type: "update",
        path: "old/name.txt",
        moveTo: "renamed/dir/name.txt",
        content: "new content\n",
        previous: "old content\n",
      },
    ]);
    expect(result.ok && result.summary.files).toEqual([
      { path: "old/name.txt", type: "update", moveTo: "renamed/dir/name.txt", added: 1, removed: 1, hunks: 1 },
    ]);
  });

  it("renames without chunks, and merges a move and a later update of the destination", async () => {
    const reader = files({ "a.txt": "one\ntwo\n" });
    expect(changesOf(await planPatch(codex("*** Update File: a.txt", "*** Move to: b.txt"), reader))).toEqual([
      { type: "update", path: "a.txt", moveTo: "b.txt", content: "one\ntwo\n", previous: "one\ntwo\n" },
    ]);
    const result = await planPatch(
      codex("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@", "-two", "+TWO"),
      files({ "a.txt": "one\ntwo\n" }),
    );
    expect(changesOf(result)).toEqual([
      { type: "update", path: "a.txt", moveTo: "b.txt", content: "ONE\nTWO\n", previous: "one\ntwo\n" },
    ]);
    expect(result.ok && result.summary.files[0]).toMatchObject({ added: 2, removed: 2, hunks: 2 });
  });

  it("refuses to move onto an existing file (Codex would overwrite it)", async () => {
    const error = errorOf(
      await planPatch(
        codex("*** Update File: a.txt", "*** Move to: b.txt", "@@", "-x", "+y"),
        files({ "a.txt": "x\n", "b.txt": "b\n" }),
      ),
    );
    expect(error).toMatchObject({ code: "file_exists", path: "b.txt", line: 2 });
    expect(error.hint).toContain("delete the destination");
  });

  it("refuses to add a file that exists (Codex would overwrite it)", async () => {
    const error = errorOf(await planPatch(codex("*** Add File: duplicate.txt", "+new"), files({ "duplicate.txt": "old\n" })));
    expect(error).toMatchObject({ code: "file_exists", path: "duplicate.txt", line: 2 });
    expect(error.message).toBe("duplicate.txt already exists.");
  });

  it("refuses to delete or update a missing file", async () => {
    expect(errorOf(await planPatch(codex("*** Delete File: missing.txt"), files({})))).toMatchObject({
      code: "file_not_found",
      path: "missing.txt",
      line: 2,
    });
    const error = errorOf(await planPatch(codex("*** Update File: missing.txt", "@@", "-a", "+b"), files({})));
    expect(error).toMatchObject({ code: "file_not_found", path: "missing.txt" });
    expect(error.hint).toContain("Add File");
  });

  it("is all or nothing: when the second file fails, no change is returned", async () => {
    const result = await planPatch(
      codex(
        "*** Update File: good.txt",
        "@@",
        "-a",
        "+A",
        "*** Add File: created.txt",
        "+x",
        "*** Update File: bad.txt",
        "@@",
        "-missing",
        "+y",
      ),
      files({ "good.txt": "a\n", "bad.txt": "present\n" }),
    );
    expect(result.ok).toBe(false);
    expect(result).not.toHaveProperty("changes");
    expect(errorOf(result)).toMatchObject({ code: "context_not_found", path: "bad.txt", hunk: 1, line: 9 });
  });

  it("runs steps on one path in order: add then update, delete then add, update then delete", async () => {
    const result = await planPatch(
      codex(
        "*** Add File: new.txt",
        "+draft",
        "*** Update File: new.txt",
        "@@",
        "-draft",
        "+final",
        "*** Delete File: again.txt",
        "*** Add File: again.txt",
        "+fresh",
        "*** Update File: doomed.txt",
        "@@",
        "-d",
        "+e",
        "*** Delete File: doomed.txt",
      ),
      files({ "again.txt": "stale\n", "doomed.txt": "d\n" }),
    );
    expect(changesOf(result)).toEqual([
      { type: "add", path: "new.txt", content: "final\n" },
      { type: "update", path: "again.txt", content: "fresh\n", previous: "stale\n" },
      { type: "delete", path: "doomed.txt", previous: "d\n" },
    ]);
  });

  it("says when a file was deleted earlier in the same patch", async () => {
    const error = errorOf(
      await planPatch(codex("*** Delete File: a.txt", "*** Update File: a.txt", "@@", "-x", "+y"), files({ "a.txt": "x\n" })),
    );
    expect(error).toMatchObject({ code: "file_not_found", path: "a.txt", line: 3 });
    expect(error.message).toBe("a.txt was deleted earlier in this patch (line 2).");
  });

  it("reports a missing @@ context line with the closest file line", async () => {
    const error = errorOf(
      await planPatch(
        codex("*** Update File: modify.txt", "@@ def handle_reqest(self):", "-    pass", "+    return 1"),
        files({ "modify.txt": "class A:\n    def handle_request(self):\n        pass\n" }),
      ),
    );
    expect(error).toMatchObject({
      code: "context_not_found",
      path: "modify.txt",
      hunk: 1,
      line: 3,
      closest: { line: 2, text: "    def handle_request(self):" },
    });
    expect(error.message).toContain("'@@ def handle_reqest(self):'");
    expect(error.hint).toContain("Line 2");
  });

  it("reports lines that are not in the file with the lines, the closest line and a hint", async () => {
    const error = errorOf(
      await planPatch(
        codex("*** Update File: a.ts", "@@", " const a = 1;", "-const b = 3;", "+const b = 4;"),
        files({ "a.ts": "const a = 1;\nconst b = 2;\n" }),
      ),
    );
    expect(error).toMatchObject({ code: "context_not_found", path: "a.ts", hunk: 1, line: 3, closest: { line: 1 } });
    expect(error.message).toContain("2 lines were not found in a.ts");
    expect(error.message).toContain("  const b = 3;");
  });

  it("refuses a chunk that matches several places, and places it after an @@ line", async () => {
    const content = "def a():\n    x = 1\n    return x\n\ndef b():\n    x = 1\n    return x\n";
    const error = errorOf(
      await planPatch(codex("*** Update File: m.py", "@@", "-    x = 1", "+    x = 2"), files({ "m.py": content })),
    );
    expect(error).toMatchObject({ code: "ambiguous_match", path: "m.py", hunk: 1, line: 3, matches: [2, 6], count: 2 });
    expect(error.hint).toContain("@@");
    expect(await updated(content, "@@ def b():", "-    x = 1", "+    x = 2")).toBe(
      content.replace("b():\n    x = 1", "b():\n    x = 2"),
    );
  });

  it("applies repeated identical chunks in order but refuses a lone or last chunk with a second place", async () => {
    const content = "x\nsame\nx\nsame\n";
    expect(await updated(content, "@@", " x", "-same", "+first", "@@", " x", "-same", "+second")).toBe("x\nfirst\nx\nsecond\n");
    const lone = errorOf(await planPatch(codex("*** Update File: f.txt", "@@", "-same", "+other"), files({ "f.txt": content })));
    expect(lone).toMatchObject({ code: "ambiguous_match", hunk: 1, matches: [2, 4], count: 2 });
    const last = errorOf(
      await planPatch(
        codex("*** Update File: f.txt", "@@", "-x", "+X", "@@", "-same", "+other"),
        files({ "f.txt": `top\n${content}` }),
      ),
    );
    expect(last).toMatchObject({ code: "ambiguous_match", hunk: 2, line: 6, matches: [3, 5] });
  });

  it("tolerates trailing whitespace, other indentation, typographic punctuation and NBSP, keeping the file's context lines", async () => {
    expect(await updated("keep   \nold  \n", "@@", " keep", "-old", "+new")).toBe("keep   \nnew\n");
    expect(await updated("\t\tif (x) {\n\t\t\tgo();\n\t\t}\n", "@@", "  if (x) {", "-    go();", "+\t\t\tstop();")).toBe(
      "\t\tif (x) {\n\t\t\tstop();\n\t\t}\n",
    );
    expect(await updated("say(“hello”);\nnext\n", "@@", '-say("hello");', '+say("bye");')).toBe('say("bye");\nnext\n');
    expect(await updated("a — b\nend\n", "@@", " a - b", "-end", "+END")).toBe("a — b\nEND\n");
    expect(await updated("it\u2019s\u00a0here\nx\n", "@@", " it's here", "-x", "+y")).toBe("it\u2019s\u00a0here\ny\n");
  });

  it("prefers an exact match over a tolerant one earlier in the file", async () => {
    expect(await updated("  target\nother\ntarget\n", "@@", "-target", "+hit")).toBe("  target\nother\nhit\n");
  });

  it("keeps a CRLF file CRLF", async () => {
    expect(await updated("a\r\nb\r\nc\r\n", "@@", " a", "-b", "+B", "+B2")).toBe("a\r\nB\r\nB2\r\nc\r\n");
  });

  it("keeps each untouched line's ending in a mixed file and gives new lines the dominant one", async () => {
    const content = "one\r\ntwo\nthree\r\nfour\r\n";
    expect(await updated(content, "@@", " two", "-three", "+THREE", " four")).toBe("one\r\ntwo\nTHREE\r\nfour\r\n");
    expect(await updated("a\nb\nc\r\n", "@@", " c", "+d")).toBe("a\nb\nc\r\nd\n");
  });

  it("keeps a missing final newline (Codex would add one)", async () => {
    expect(await updated("first\nlast", "@@", " first", "-last", "+LAST")).toBe("first\nLAST");
    expect(await updated("first\nlast", "@@", " last", "+after")).toBe("first\nlast\nafter");
    expect(await updated("a\r\nb", "@@", "-a", "+A")).toBe("A\r\nb");
  });

  it("anchors a chunk marked End of File at the end of the file", async () => {
    expect(await updated("x\nend\nx\nend\n", "@@", " x", "-end", "+END", "*** End of File")).toBe("x\nend\nx\nEND\n");
    const error = errorOf(
      await planPatch(
        codex("*** Update File: f.txt", "@@", "-first", "+FIRST", "*** End of File"),
        files({ "f.txt": "first\nsecond\n" }),
      ),
    );
    expect(error).toMatchObject({ code: "context_not_found", hunk: 1 });
    expect(error.message).toContain("at the end of the file");
    expect(error.hint).toContain("line 1, not at the end");
  });

  it("appends a pure addition without context at the end, and inserts one after its @@ line", async () => {
    expect(await updated("line1\nline2\n", "@@", "+added 1", "+added 2")).toBe("line1\nline2\nadded 1\nadded 2\n");
    expect(await updated("import a\n\ncode()\n", "@@ import a", "+import b")).toBe("import a\nimport b\n\ncode()\n");
    expect(await updated("a\nb\n", "@@ a", "+z", "*** End of File")).toBe("a\nb\nz\n");
    expect(await updated("a\n\n", "@@", "+b")).toBe("a\nb\n\n");
    expect(await updated("a\n\n", "@@", "+b", "*** End of File")).toBe("a\n\nb\n");
  });

  it("deletes lines, handles Unicode text, and finds chunks that repeat their @@ line", async () => {
    expect(await updated("keep\ndrop1\ndrop2\nkeep2\n", "@@", " keep", "-drop1", "-drop2")).toBe("keep\nkeep2\n");
    expect(await updated("line1\nnaïve café\nline3\n", "@@", " line1", "-naïve café", "+naïve café ✅")).toBe(
      "line1\nnaïve café ✅\nline3\n",
    );
    expect(await updated("def f():\n    pass\n", "@@ def f():", " def f():", "-    pass", "+    return 1")).toBe(
      "def f():\n    return 1\n",
    );
  });

  it("retries without trailing blank context lines", async () => {
    expect(await updated("a\nb", "@@", "-b", "+c", "")).toBe("a\nc");
  });

  it("says when chunks are out of file order", async () => {
    const error = errorOf(
      await planPatch(codex("*** Update File: f.txt", "@@", "-b", "+B", "@@", "-a", "+A"), files({ "f.txt": "a\nb\n" })),
    );
    expect(error).toMatchObject({ code: "context_not_found", hunk: 2, line: 6 });
    expect(error.hint).toContain("chunks must follow the file's order");
  });

  it("leaves out files a patch does not change", async () => {
    const result = await planPatch(codex("*** Update File: f.txt", "@@", " same"), files({ "f.txt": "same\n" }));
    expect(result).toEqual({ ok: true, changes: [], summary: { files: [], added: 0, removed: 0 }, ignoredModes: [] });
  });

  it("reads each path once, however many steps name it", async () => {
    const reader = files({ "f.txt": "a\n" });
    changesOf(
      await planPatch(codex("*** Update File: f.txt", "@@", "-a", "+b", "*** Update File: ./f.txt", "@@", "-b", "+c"), reader),
    );
    expect(reader.reads).toEqual(["f.txt"]);
  });

  it("returns parse errors as results", async () => {
    expect(errorOf(await planPatch({ kind: "codex", patch: "*** Update File: a\n" }, files({})))).toMatchObject({
      code: "patch_parse_error",
      line: 1,
    });
  });
});
