import { describe, expect, it } from "vitest";
import type { FileOperation } from "./file-operation.js";
import { parseUnifiedDiff } from "./unified-diff-parser.js";

function parsed(text: string): FileOperation[] {
  const result = parseUnifiedDiff(text);
  if (!result.ok) throw new Error(`expected a parse, got ${result.error.message}`);
  return result.value;
}

function parseFailure(text: string) {
  const result = parseUnifiedDiff(text);
  if (result.ok) throw new Error("expected a parse error");
  return result.error;
}

describe("parseUnifiedDiff", () => {
  it("parses a git diff with several files, ignoring commit text and index lines", () => {
    const operations = parsed(
      [
        "From 123 Mon Sep 17 00:00:00 2001",
        "Subject: [PATCH] change things",
        "",
        "diff --git a/src/a.ts b/src/a.ts",
        "index 83db48f..bf269f4 100644",
        "--- a/src/a.ts",
        "+++ b/src/a.ts",
        "@@ -1,3 +1,3 @@ function f() {",
        " one",
        "-two",
        "+TWO",
        " three",
        "diff --git a/new.txt b/new.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/new.txt",
        "@@ -0,0 +1,2 @@",
        "+hello",
        "+world",
        "diff --git a/gone.txt b/gone.txt",
        "deleted file mode 100644",
        "--- a/gone.txt",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-bye",
        "-- ",
        "2.40.0",
      ].join("\n"),
    );
    expect(operations).toMatchObject([
      {
        type: "update",
        path: "src/a.ts",
        style: "unified",
        patchLine: 6,
        hunks: [
          { oldStart: 1, patchLine: 8, lines: [{ kind: "context" }, { kind: "remove" }, { kind: "add" }, { kind: "context" }] },
        ],
      },
      { type: "add", path: "new.txt", content: "hello\nworld\n", patchLine: 15 },
      { type: "delete", path: "gone.txt", patchLine: 22, hunks: [{ lines: [{ kind: "remove", text: "bye" }] }] },
    ]);
  });

  it("keeps plain diff paths without a/ b/ prefixes and drops GNU timestamps", () => {
    const [operation] = parsed("--- a.txt\t2024-01-01 10:00:00\n+++ a.txt\t2024-01-02 10:00:00\n@@ -1 +1 @@\n-x\n+y\n");
    expect(operation).toMatchObject({ type: "update", path: "a.txt" });
  });

  it("reads renames, with and without hunks, and quoted paths", () => {
    const operations = parsed(
      [
        "diff --git a/old name.txt b/new name.txt",
        "similarity index 100%",
        "rename from old name.txt",
        "rename to new name.txt",
        'diff --git "a/caf\\303\\251.txt" "b/caf\\303\\251 2.txt"',
        "similarity index 90%",
        'rename from "caf\\303\\251.txt"',
        'rename to "caf\\303\\251 2.txt"',
        '--- "a/caf\\303\\251.txt"',
        '+++ "b/caf\\303\\251 2.txt"',
        "@@ -1 +1 @@",
        "-a",
        "+b",
      ].join("\n"),
    );
    expect(operations).toMatchObject([
      { type: "update", path: "old name.txt", moveTo: "new name.txt", hunks: [] },
      { type: "update", path: "café.txt", moveTo: "café 2.txt", hunks: [{ lines: [{ text: "a" }, { text: "b" }] }] },
    ]);
  });

  it("reads empty new and deleted files that git writes without hunks", () => {
    expect(parsed("diff --git a/empty b/empty\nnew file mode 100644\nindex 0000000..e69de29\n")).toEqual([
      { type: "add", path: "empty", content: "", patchLine: 1 },
    ]);
    expect(parsed("diff --git a/empty b/empty\ndeleted file mode 100644\nindex e69de29..0000000\n")).toEqual([
      { type: "delete", path: "empty", patchLine: 1, hunks: [] },
    ]);
  });

  it("records '\\ No newline at end of file' on the side it follows", () => {
    const [operation] = parsed("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n\\ No newline at end of file\n+new\n");
    expect(operation).toMatchObject({ hunks: [{ oldNoNewline: true, newNoNewline: false }] });
    const [added] = parsed("--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+only\n\\ No newline at end of file\n");
    expect(added).toEqual({ type: "add", path: "x", content: "only", patchLine: 1 });
  });

  it("treats header counts as advisory: undercounted hunks keep their lines, overcounted ones end at the next header", () => {
    const operations = parsed(
      "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n a\n-b\n+c\n d\n@@ -10,9 +10,9 @@\n-q\n+r\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-1\n+2\n",
    );
    expect(operations).toMatchObject([
      {
        path: "x",
        hunks: [
          { lines: [{ text: "a" }, { text: "b" }, { text: "c" }, { text: "d" }] },
          { lines: [{ text: "q" }, { text: "r" }] },
        ],
      },
      { path: "y" },
    ]);
  });

  it("reads '--- ' and '+++ ' inside a hunk's counts as removed and added lines", () => {
    const [operation] = parsed("--- a/q.sql\n+++ b/q.sql\n@@ -1,2 +1,2 @@\n--- old comment\n+++ new comment\n select 1;\n");
    expect(operation).toMatchObject({
      hunks: [
        {
          lines: [
            { kind: "remove", text: "-- old comment" },
            { kind: "add", text: "++ new comment" },
            { kind: "context", text: "select 1;" },
          ],
        },
      ],
    });
  });

  it("reads a blank line inside a hunk as empty context, but not a blank line after it", () => {
    const [operation] = parsed("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n\n\n");
    expect(operation).toMatchObject({ hunks: [{ lines: [{ text: "a" }, { text: "" }, { text: "b" }, { text: "c" }] }] });
    const hunk = operation?.type === "update" ? operation.hunks[0] : undefined;
    expect(hunk?.lines).toHaveLength(4);
  });

  it.each([
    ["a bad hunk header", "--- a/x\n+++ b/x\n@@ -a +b @@\n-x\n", 3, "is not a valid hunk header"],
    ["a bare @@", "--- a/x\n+++ b/x\n@@\n-x\n", 3, "is not a valid hunk header"],
    ["a hunk before any file header", "@@ -1 +1 @@\n-x\n+y\n", 1, "before any"],
    ["a line without a prefix", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-x\nno prefix here\n+y\n", 5, "has no prefix"],
    ["a file section without hunks", "--- a/x\n+++ b/x\n", 1, "has no '@@' hunks"],
    ["a new file with context lines", "--- /dev/null\n+++ b/x\n@@ -0,0 +1,2 @@\n a\n+b\n", 1, "may only add lines"],
  ])("reports %s with its line number", (_name, text, line, message) => {
    const error = parseFailure(text);
    expect(error).toMatchObject({ code: "patch_parse_error", line });
    expect(error.message).toContain(message);
  });

  it("reports text with no file sections, binary patches and copies", () => {
    expect(parseFailure("just some words\n")).toMatchObject({ code: "patch_parse_error" });
    expect(parseFailure("diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n")).toMatchObject({
      code: "unsupported_patch",
      line: 2,
    });
    expect(parseFailure("diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n")).toMatchObject({
      code: "unsupported_patch",
    });
  });

  it("refuses a path naming a directory, and leaves parent paths to the scope", () => {
    expect(parseFailure("--- a/x/..\n+++ b/x/..\n@@ -1 +1 @@\n-x\n+y\n")).toMatchObject({ code: "invalid_path", line: 1 });
  });
});
