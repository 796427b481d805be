import { describe, expect, it } from "vitest";
import { parseCodexPatch } from "./codex-patch-parser.js";
import type { FileOperation } from "./file-operation.js";

function parsed(text: string): FileOperation[] {
  const result = parseCodexPatch(text);
  if (!result.ok) throw new Error(`expected a parse, got ${result.error.message}`);
  return result.value;
}

function parseFailure(text: string) {
  const result = parseCodexPatch(text);
  if (result.ok) throw new Error("expected a parse error");
  return result.error;
}

describe("parseCodexPatch", () => {
  it("parses add, delete and update with move, context and end of file", () => {
    const operations = parsed(
      [
        "*** Begin Patch",
        "*** Add File: docs/new.md",
        "+# Title",
        "+",
        "+body",
        "*** Delete File: old.txt",
        "*** Update File: src/a.py",
        "*** Move to: src/b.py",
        "@@ def f():",
        "-    pass",
        "+    return 1",
        "@@",
        " tail",
        "+more",
        "*** End of File",
        "*** End Patch",
      ].join("\n"),
    );
    expect(operations).toEqual([
      { type: "add", path: "docs/new.md", content: "# Title\n\nbody\n", patchLine: 2 },
      { type: "delete", path: "old.txt", patchLine: 6 },
      {
        type: "update",
        path: "src/a.py",
        moveTo: "src/b.py",
        style: "codex",
        patchLine: 7,
        hunks: [
          {
            context: "def f():",
            patchLine: 9,
            endOfFile: false,
            oldNoNewline: false,
            newNoNewline: false,
            lines: [
              { kind: "remove", text: "    pass" },
              { kind: "add", text: "    return 1" },
            ],
          },
          {
            patchLine: 12,
            endOfFile: true,
            oldNoNewline: false,
            newNoNewline: false,
            lines: [
              { kind: "context", text: "tail" },
              { kind: "add", text: "more" },
            ],
          },
        ],
      },
    ]);
  });

  it("accepts a first chunk without @@, padded markers, CRLF patch text and a heredoc wrapper", () => {
    const text =
      "<<'EOF'\r\n  *** Begin Patch \r\n  *** Update File: a.txt\r\n import x\r\n+import y\r\n *** End Patch\r\nEOF\r\n";
    const [operation] = parsed(text);
    expect(operation).toMatchObject({
      type: "update",
      path: "a.txt",
      hunks: [
        {
          lines: [
            { kind: "context", text: "import x" },
            { kind: "add", text: "import y" },
          ],
        },
      ],
    });
  });

  it("reads an empty line inside a chunk as an empty context line, and a blank line inside Add File as an empty line", () => {
    const [add, update] = parsed(
      "*** Begin Patch\n*** Add File: a\n+one\n\n+three\n*** Update File: b\n@@\n x\n\n-y\n*** End Patch",
    );
    expect(add).toMatchObject({ content: "one\n\nthree\n" });
    expect(update).toMatchObject({
      hunks: [
        {
          lines: [
            { kind: "context", text: "x" },
            { kind: "context", text: "" },
            { kind: "remove", text: "y" },
          ],
        },
      ],
    });
  });

  it("keeps a context line that merely looks like a marker or an @@ line", () => {
    const [operation] = parsed("*** Begin Patch\n*** Update File: a\n@@\n *** not a marker\n @@ not a chunk\n-x\n*** End Patch");
    expect(operation).toMatchObject({
      hunks: [{ lines: [{ text: "*** not a marker" }, { text: "@@ not a chunk" }, { kind: "remove", text: "x" }] }],
    });
  });

  it("treats Update File with Move to and no chunks as a pure rename", () => {
    expect(parsed("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch")).toEqual([
      { type: "update", path: "a", moveTo: "b", hunks: [], style: "codex", patchLine: 2 },
    ]);
  });

  it("normalises paths, keeps absolute and parent paths for the scope to judge, and refuses a drive letter with the patch line", () => {
    expect(parsed("*** Begin Patch\n*** Delete File: ./src//x/../y.ts\n*** End Patch")).toEqual([
      { type: "delete", path: "src/y.ts", patchLine: 2 },
    ]);
    expect(parsed("*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch")).toEqual([
      { type: "delete", path: "/etc/passwd", patchLine: 2 },
    ]);
    expect(parseFailure("*** Begin Patch\n*** Delete File: C:\\x\n*** End Patch")).toMatchObject({
      code: "invalid_path",
      line: 2,
    });
  });

  it.each([
    ["a missing Begin Patch", "*** Update File: a\n@@\n-x\n*** End Patch", 1, "must start with '*** Begin Patch'"],
    ["a missing End Patch", "*** Begin Patch\n*** Update File: a\n@@\n-x", 4, "must end with '*** End Patch'"],
    ["text after End Patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch\nthanks!", 4, "text follows '*** End Patch'"],
    ["an unknown file header", "*** Begin Patch\n*** Frobnicate File: foo\n*** End Patch", 2, "is not a file operation header"],
    [
      "a line without a prefix",
      "*** Begin Patch\n*** Update File: a\n@@\n-x\nlet y = 2;\n*** End Patch",
      5,
      "has no ' ', '+' or '-' prefix",
    ],
    ["an Update File without chunks", "*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "has no chunks"],
    ["an empty chunk", "*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch", 3, "the chunk has no lines"],
    [
      "End of File outside a chunk",
      "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch",
      4,
      "must follow the lines",
    ],
    [
      "a second chunk without @@",
      "*** Begin Patch\n*** Update File: a\n@@\n-x\n*** End of File\n-y\n*** End Patch",
      6,
      "expected '@@'",
    ],
    ["an Add File line without +", "*** Begin Patch\n*** Add File: a\n+x\n y\n*** End Patch", 4, "does not start with '+'"],
    ["a header without a path", "*** Begin Patch\n*** Delete File:\n*** End Patch", 2, "names no path"],
    ["only the markers", "*** Begin Patch\n*** End Patch", 2, "no file operations"],
  ])("reports %s with its line number", (_name, text, line, message) => {
    const error = parseFailure(text);
    expect(error.code).toBe("patch_parse_error");
    expect(error.line).toBe(line);
    expect(error.message).toContain(message);
    expect(error.message).toContain(`Line ${line}`);
    expect(error.hint).toBeTruthy();
  });

  it("reports an empty patch", () => {
    expect(parseFailure("  \n\n")).toMatchObject({ code: "patch_parse_error", message: "The patch is empty." });
  });
});
