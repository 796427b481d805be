/**
 * A UTF-8 byte-order mark: `read` passed it through as an invisible first character of line 1,
 * which a model copied into an edit's old_text (the edit then dropped the mark from the file) or
 * could not reproduce (a hashline anchor of line 1 never matched). Now read shows line 1 without
 * it and says the file has one, and edit, replace, apply_patch and anchored edits apply to the text
 * after it and keep it, once; an old_text, find or hunk that spells the mark edits it (`"\ufeff"`
 * -> `""` removes it: it answered `no_match`). Controls: a file without a mark is unchanged by the same edits, and a
 * mark that is not at the start is text like any other.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createApplyPatchTool, createEditTool, createReadTool, createReplaceTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BOM = "\ufeff";

describe("files that start with a UTF-8 byte-order mark", () => {
  let workspace: string;
  let counter = 0;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-bom-"));
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  function run(hashline = false) {
    return createRegistry({
      tools: [createReadTool({ hashline }), createEditTool({ hashline }), createReplaceTool(), createApplyPatchTool()],
    }).createRun({ profile: "full", permissions: { workspace, sandbox: "unrestricted" } });
  }

  async function file(content: string): Promise<string> {
    const name = `f${++counter}.txt`;
    await writeFile(path.join(workspace, name), content);
    return name;
  }

  const text = async (name: string) => readFile(path.join(workspace, name), "utf8");

  it("read shows line 1 without the mark and says the file has one", async () => {
    const name = await file(`${BOM}first\nsecond\n`);
    const result = await run().call("read", { path: name });
    expect(result.ok).toBe(true);
    const output = String(result.ok && result.output);
    expect(output).not.toContain(BOM);
    expect(output).toContain("     1\tfirst\n");
    expect(output).toContain("UTF-8 with BOM (kept by edits)");
    // Control: no mark, no note.
    const plain = await run().call("read", { path: await file("first\n") });
    expect(String(plain.ok && plain.output)).not.toContain("BOM");
  });

  for (const [label, oldText, newText] of [
    ["old_text as read shows it", "first", "FIRST"],
    ["old_text as read shows it, new_text with the mark", "first", `${BOM}FIRST`],
    ["old_text and new_text with the mark", `${BOM}first`, `${BOM}FIRST`],
  ] as const) {
    it(`edit of line 1 (${label}) keeps the mark, once`, async () => {
      const name = await file(`${BOM}first\nsecond\n`);
      const result = await run().call("edit", { path: name, old_text: oldText, new_text: newText });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(await text(name)).toBe(`${BOM}FIRST\nsecond\n`);
    });
  }

  // An old_text that spells the mark edits it (it could not be removed at all: `no_match`).
  for (const [content, oldText, newText, after] of [
    [BOM, BOM, "", ""],
    [`${BOM}x`, BOM, "", "x"],
    [`${BOM}first\nsecond\n`, `${BOM}first`, "FIRST", "FIRST\nsecond\n"],
  ] as const) {
    it(`edit ${JSON.stringify(oldText)} -> ${JSON.stringify(newText)} on ${JSON.stringify(content)} edits the mark`, async () => {
      const name = await file(content);
      const result = await run().call("edit", { path: name, old_text: oldText, new_text: newText });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      expect(await text(name)).toBe(after);
    });
  }

  for (const [label, lines, after] of [
    ["-mark a / +mark b: one mark", ["-\ufeffa", "+\ufeffb"], `${BOM}b\n`],
    ["-mark a / +b: the mark removed", ["-\ufeffa", "+b"], "b\n"],
    ["-a / +mark b: one mark", ["-a", "+\ufeffb"], `${BOM}b\n`],
    ["-a / +b: the mark kept", ["-a", "+b"], `${BOM}b\n`],
  ] as const) {
    it(`a unified diff on a file with a mark, ${label}`, async () => {
      const name = await file(`${BOM}a\nz\n`);
      const patch = `--- a/${name}\n+++ b/${name}\n@@ -1,2 +1,2 @@\n${lines.join("\n")}\n z\n`;
      const applied = await run().call("apply_patch", { patch });
      expect(applied.ok, JSON.stringify(applied)).toBe(true);
      expect(await text(name)).toBe(after.replace(/\n$/, "\nz\n"));
    });
  }

  it("replace and apply_patch of line 1 keep the mark", async () => {
    const replaced = await file(`${BOM}first\nsecond\n`);
    const result = await run().call("replace", { path: replaced, find: "first", replace: "one" });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(await text(replaced)).toBe(`${BOM}one\nsecond\n`);
    // A find that spells the mark edits it.
    const spelled = await file(`${BOM}first\nsecond\n`);
    const edited = await run().call("replace", { path: spelled, find: `${BOM}first`, replace: "one" });
    expect(edited.ok, JSON.stringify(edited)).toBe(true);
    expect(await text(spelled)).toBe("one\nsecond\n");
    const patched = await file(`${BOM}first\nsecond\n`);
    const patch = `*** Begin Patch\n*** Update File: ${patched}\n@@\n-first\n+one\n second\n*** End Patch`;
    const applied = await run().call("apply_patch", { patch });
    expect(applied.ok, JSON.stringify(applied)).toBe(true);
    expect(await text(patched)).toBe(`${BOM}one\nsecond\n`);
  });

  it("an anchored edit of line 1 with the anchor read returned keeps the mark", async () => {
    const name = await file(`${BOM}first\nsecond\n`);
    const hashline = run(true);
    const read = await hashline.call("read", { path: name });
    const anchor = /^(\d+#[^|]+)\|first$/m.exec(String(read.ok && read.output))?.[1];
    expect(anchor, String(read.ok && read.output)).toBeDefined();
    const result = await hashline.call("edit", { path: name, start_anchor: anchor as string, new_text: "FIRST" });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    expect(await text(name)).toBe(`${BOM}FIRST\nsecond\n`);
  });

  it("control: without a mark, and with one past the start, text is edited as it is", async () => {
    const plain = await file("first\nsecond\n");
    expect((await run().call("edit", { path: plain, old_text: "first", new_text: "FIRST" })).ok).toBe(true);
    expect(await text(plain)).toBe("FIRST\nsecond\n");
    const inner = await file(`first\n${BOM}second\n`);
    expect((await run().call("edit", { path: inner, old_text: `${BOM}second`, new_text: "two" })).ok).toBe(true);
    expect(await text(inner)).toBe("first\ntwo\n");
  });
});
