import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure, okText } from "../support/call-results.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-edit-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function run(options: { hashline?: boolean } = {}): Run {
  return createRegistry({ tools: createFileTools(options) }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
}
const file = (name: string) => path.join(workspace, name);
const read = (name: string) => readFile(file(name), "utf8");
const versionIn = (text: string) => /v_[0-9a-f]{16}/.exec(text)?.[0] ?? "";

describe("edit and replace", () => {
  it("replaces exact text once, keeps CRLF, and refuses ambiguous, missing or stale edits", async () => {
    await writeFile(file("a.txt"), "one\r\ntwo\r\ntwo\r\n");
    const r = run();
    expect(failure(await r.call("edit", { path: "a.txt", old_text: "two", new_text: "2" })).code).toBe("ambiguous_match");
    expect(failure(await r.call("edit", { path: "a.txt", old_text: "three", new_text: "3" })).code).toBe("no_match");
    const version = versionIn(okText(await r.call("read", { path: "a.txt" })));
    okText(await r.call("edit", { path: "a.txt", old_text: "one\ntwo", new_text: "uno\ndos", expected_version: version }));
    expect(await read("a.txt")).toBe("uno\r\ndos\r\ntwo\r\n");
    expect(failure(await r.call("edit", { path: "a.txt", old_text: "dos", new_text: "x", expected_version: version })).code).toBe(
      "version_conflict",
    );
    okText(await r.call("replace", { path: "a.txt", find: "two", replace: "tres", replace_all: true }));
    expect(await read("a.txt")).toBe("uno\r\ndos\r\ntres\r\n");
  });

  it("edits by hashline anchors and refuses a stale anchor, showing fresh ones", async () => {
    await writeFile(file("h.txt"), "alpha\nbeta\ngamma\n");
    const r = run({ hashline: true });
    const listing = okText(await r.call("read", { path: "h.txt" }));
    const anchor = /2#[0-9a-f]{4}/.exec(listing)?.[0] as string;
    okText(await r.call("edit", { path: "h.txt", start_anchor: anchor, new_text: "BETA\nBETA2" }));
    expect(await read("h.txt")).toBe("alpha\nBETA\nBETA2\ngamma\n");
    const stale = failure(await r.call("edit", { path: "h.txt", start_anchor: anchor, new_text: "x" }));
    expect(stale.code).toBe("stale_anchor");
    expect(stale.message).toMatch(/Fresh anchors near line 2:\n1#[0-9a-f]{4}\|alpha\n2#[0-9a-f]{4}\|BETA/);
    // Without hashline edits the schema has no anchors: the call lacks old_text.
    expect(failure(await run().call("edit", { path: "h.txt", start_anchor: "1#0000", new_text: "x" })).issues).toEqual([
      { path: "old_text", message: "old_text is required" },
    ]);
  });
});

describe("apply_patch", () => {
  it("applies a multi-file Codex patch with add, update, move and delete, undone in one step", async () => {
    await writeFile(file("keep.ts"), "const a = 1;\nconst b = 2;\n");
    await writeFile(file("old.ts"), "export {};\n");
    await writeFile(file("gone.ts"), "bye\n");
    const r = run();
    const patch = [
      "*** Begin Patch",
      "*** Add File: new.ts",
      "+export const c = 3;",
      "*** Update File: keep.ts",
      "@@",
      " const a = 1;",
      "-const b = 2;",
      "+const b = 20;",
      "*** Update File: old.ts",
      "*** Move to: moved.ts",
      "*** Delete File: gone.ts",
      "*** End Patch",
    ].join("\n");
    const summary = okText(await r.call("apply_patch", { patch }));
    expect(summary).toContain("A new.ts (+1 -0)");
    expect(summary).toContain("R old.ts -> moved.ts");
    expect(await read("keep.ts")).toBe("const a = 1;\nconst b = 20;\n");
    expect(await read("moved.ts")).toBe("export {};\n");
    okText(await r.call("undo", {}));
    expect(await read("keep.ts")).toBe("const a = 1;\nconst b = 2;\n");
    expect(await read("gone.ts")).toBe("bye\n");
    expect(await read("old.ts")).toBe("export {};\n");
    await expect(read("new.ts")).rejects.toThrow();
  });

  it("applies a unified diff with fuzzy whitespace and curly quotes, keeping mixed endings", async () => {
    await writeFile(file("m.txt"), "say “hello”  \r\nsecond\nthird\n");
    const diff = ["--- a/m.txt", "+++ b/m.txt", "@@ -1,2 +1,2 @@", ' say "hello"', "-second", "+SECOND"].join("\n");
    okText(await run().call("apply_patch", { patch: diff }));
    expect(await read("m.txt")).toBe("say “hello”  \r\nSECOND\nthird\n");
  });

  it("leaves every file as it was when one file of a patch does not apply", async () => {
    await writeFile(file("a.txt"), "a\n");
    await writeFile(file("b.txt"), "b\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      "-a",
      "+A",
      "*** Update File: b.txt",
      "-zzz",
      "+Z",
      "*** End Patch",
    ].join("\n");
    const error = failure(await run().call("apply_patch", { patch }));
    expect(error.code).toBe("context_not_found");
    expect(error.message).toContain("No file was changed");
    expect(await read("a.txt")).toBe("a\n");
  });

  it("changes no file when a later file of the patch cannot be written", async () => {
    await writeFile(file("a.txt"), "a\n");
    await writeFile(file("blocker"), "a file where a directory is needed\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      "-a",
      "+A",
      "*** Add File: blocker/child.txt",
      "+x",
      "*** End Patch",
    ].join("\n");
    const error = failure(await run().call("apply_patch", { patch }));
    expect(error.code).toBe("not_a_directory");
    expect(error.message).toContain("No file was changed");
    expect(await read("a.txt")).toBe("a\n");
  });

  it("takes an edits array or a find/replace, and refuses bad combinations and escapes", async () => {
    await writeFile(file("e.txt"), "x y z\n");
    const r = run();
    okText(
      await r.call("apply_patch", {
        path: "e.txt",
        edits: [
          { old_text: "x", new_text: "1" },
          { old_text: "z", new_text: "3" },
        ],
      }),
    );
    okText(await r.call("apply_patch", { path: "e.txt", find: "y", replace: "2" }));
    expect(await read("e.txt")).toBe("1 2 3\n");
    expect(failure(await r.call("apply_patch", { path: "e.txt", find: "1" })).issues?.[0]?.path).toBe("replace");
    expect(failure(await r.call("apply_patch", { patch: "x", edits: [] })).code).toBe("invalid_input");
    const escaping = ["*** Begin Patch", "*** Add File: ../evil.txt", "+x", "*** End Patch"].join("\n");
    expect(failure(await r.call("apply_patch", { patch: escaping })).code).toBe("path_outside_workspace");
  });
});
