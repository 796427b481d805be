import { describe, expect, it } from "vitest";
import { textOf } from "./file-content.js";
import { planPatch } from "./plan-patch.js";
import { changesOf, errorOf, files } from "./plan-patch.test-support.js";

function unified(...lines: string[]): { kind: "unified"; patch: string } {
  return { kind: "unified", patch: `${lines.join("\n")}\n` };
}

async function updated(content: string, ...lines: string[]): Promise<string> {
  const [change] = changesOf(await planPatch(unified("--- a/f.txt", "+++ b/f.txt", ...lines), files({ "f.txt": content })));
  if (change?.type !== "update") throw new Error(`expected an update, got ${change?.type}`);
  return textOf(change.content);
}

const TEN = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`)
  .join("\n")
  .concat("\n");

describe("planPatch with a unified diff", () => {
  it("applies a multi-file git diff with an add, a delete and a rename", async () => {
    const result = await planPatch(
      unified(
        "diff --git a/src/a.ts b/src/a.ts",
        "index 1111111..2222222 100644",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -1,3 +1,4 @@",
        " import x;",
        "-const a = 1;",
        "+const a = 2;",
        "+const b = 3;",
        " export {};",
        "diff --git a/new.md b/new.md",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/new.md",
        "@@ -0,0 +1 @@",
        "+# New",
        "diff --git a/old.md b/old.md",
        "deleted file mode 100644",
        "--- a/old.md",
        "+++ /dev/null",
        "@@ -1,2 +0,0 @@",
        "-gone",
        "-too",
        "diff --git a/from.txt b/to.txt",
        "similarity index 100%",
        "rename from from.txt",
        "rename to to.txt",
      ),
      files({ "src/a.ts": "import x;\nconst a = 1;\nexport {};\n", "old.md": "gone\ntoo\n", "from.txt": "moved\n" }),
    );
    expect(changesOf(result)).toEqual([
      {
        type: "update",
        path: "src/a.ts",
        content: "import x;\nconst a = 2;\nconst b = 3;\nexport {};\n",
        previous: "import x;\nconst a = 1;\nexport {};\n",
      },
      { type: "add", path: "new.md", content: "# New\n" },
      { type: "delete", path: "old.md", previous: "gone\ntoo\n" },
      { type: "update", path: "from.txt", moveTo: "to.txt", content: "moved\n", previous: "moved\n" },
    ]);
    expect(result.ok && result.summary).toMatchObject({ added: 3, removed: 3 });
    expect(result.ok && result.summary.files[0]).toEqual({ path: "src/a.ts", type: "update", added: 2, removed: 1, hunks: 1 });
  });

  it("applies a hunk at its stated line even when the same lines occur earlier", async () => {
    const content = "a\nx\nb\na\nx\nb\n";
    expect(await updated(content, "@@ -4,3 +4,3 @@", " a", "-x", "+Y", " b")).toBe("a\nx\nb\na\nY\nb\n");
  });

  it("searches near the stated line when the file has moved (fuzz), taking the nearest match", async () => {
    const content = `header 1\nheader 2\n${TEN}`;
    expect(await updated(content, "@@ -5,3 +5,3 @@", " line 5", "-line 6", "+LINE 6", " line 7")).toBe(
      content.replace("line 6", "LINE 6"),
    );
    const repeated = "k\nv\n".repeat(20);
    const result = await updated(repeated, "@@ -30,2 +30,2 @@", " k", "-v", "+V");
    expect(result.split("\n").indexOf("V")).toBe(29);
  });

  it("matches with the tolerant levels, keeping the file's context lines", async () => {
    expect(
      await updated(
        "  if (a) {\t\n    call(“x”);\n  }\n",
        "@@ -1,3 +1,3 @@",
        " if (a) {",
        '-call("x");',
        '+    call("y");',
        " }",
      ),
    ).toBe('  if (a) {\t\n    call("y");\n  }\n');
  });

  it("applies several hunks and keeps the lines between them", async () => {
    const after = await updated(
      TEN,
      "@@ -1,2 +1,2 @@",
      "-line 1",
      "+LINE 1",
      " line 2",
      "@@ -9,2 +9,2 @@",
      " line 9",
      "-line 10",
      "+LINE 10",
    );
    expect(after).toBe(TEN.replace("line 1\n", "LINE 1\n").replace("line 10", "LINE 10"));
  });

  it("inserts a hunk without old lines after its stated line", async () => {
    expect(await updated("a\nb\nc\n", "@@ -2,0 +3 @@", "+inserted")).toBe("a\nb\ninserted\nc\n");
    expect(await updated("", "@@ -0,0 +1,2 @@", "+one", "+two")).toBe("one\ntwo\n");
  });

  it("honours '\\ No newline at end of file' and otherwise keeps the final newline as it was", async () => {
    expect(await updated("a\nb\n", "@@ -1,2 +1,2 @@", " a", "-b", "+c", "\\ No newline at end of file")).toBe("a\nc");
    expect(await updated("a\nb", "@@ -1,2 +1,2 @@", " a", "-b", "\\ No newline at end of file", "+c")).toBe("a\nc\n");
    expect(await updated("a\nb", "@@ -1,2 +1,2 @@", " a", "-b", "+c")).toBe("a\nc");
    expect(await updated("a\nb\nc", "@@ -1,1 +1,1 @@", "-a", "+A")).toBe("A\nb\nc");
  });

  it("keeps CRLF and mixed line endings", async () => {
    expect(await updated("a\r\nb\r\nc\r\n", "@@ -1,3 +1,3 @@", " a", "-b", "+B", " c")).toBe("a\r\nB\r\nc\r\n");
    expect(await updated("a\nb\r\nc\r\nd\r\n", "@@ -3,2 +3,3 @@", " c", "+new", " d")).toBe("a\nb\r\nc\r\nnew\r\nd\r\n");
    expect(await updated("a\nb\r\nc\r\nd\n", "@@ -3,2 +3,3 @@", " c", "+new", " d")).toBe("a\nb\r\nc\r\nnew\nd\n");
  });

  it("reports a hunk that matches nowhere with the closest line", async () => {
    const error = errorOf(
      await planPatch(
        unified(
          "--- a/f.txt",
          "+++ b/f.txt",
          "@@ -1,1 +1,1 @@",
          "-line 1",
          "+LINE 1",
          "@@ -5,2 +5,2 @@",
          " line 5",
          "-line six",
          "+LINE 6",
        ),
        files({ "f.txt": TEN }),
      ),
    );
    expect(error).toMatchObject({
      code: "context_not_found",
      path: "f.txt",
      hunk: 2,
      line: 6,
      closest: { line: 5, text: "line 5" },
    });
    expect(error.message).toContain("  line six");
  });

  it("is all or nothing across files", async () => {
    const result = await planPatch(
      unified(
        "--- a/one.txt",
        "+++ b/one.txt",
        "@@ -1 +1 @@",
        "-1",
        "+one",
        "--- a/two.txt",
        "+++ b/two.txt",
        "@@ -1 +1 @@",
        "-2",
        "+two",
      ),
      files({ "one.txt": "1\n", "two.txt": "not two\n" }),
    );
    expect(result.ok).toBe(false);
    expect(errorOf(result)).toMatchObject({ code: "context_not_found", path: "two.txt", hunk: 1, line: 8 });
  });

  it("refuses an add over an existing file, a delete that leaves lines, and changes to missing files", async () => {
    expect(
      errorOf(await planPatch(unified("--- /dev/null", "+++ b/x", "@@ -0,0 +1 @@", "+x"), files({ x: "here\n" }))),
    ).toMatchObject({
      code: "file_exists",
      path: "x",
      line: 1,
    });
    expect(
      errorOf(await planPatch(unified("--- a/x", "+++ /dev/null", "@@ -1 +0,0 @@", "-one"), files({ x: "one\ntwo\n" }))),
    ).toMatchObject({ code: "content_mismatch", path: "x" });
    expect(errorOf(await planPatch(unified("--- a/x", "+++ /dev/null", "@@ -1 +0,0 @@", "-one"), files({})))).toMatchObject({
      code: "file_not_found",
    });
    expect(errorOf(await planPatch(unified("--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "+b"), files({})))).toMatchObject({
      code: "file_not_found",
    });
  });

  it("refuses a rename onto an existing file", async () => {
    const result = await planPatch(unified("diff --git a/a b/b", "rename from a", "rename to b"), files({ a: "a\n", b: "b\n" }));
    expect(errorOf(result)).toMatchObject({ code: "file_exists", path: "b" });
  });
});
