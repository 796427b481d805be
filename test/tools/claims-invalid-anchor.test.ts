/**
 * README error table: `invalid_anchor`, "a line anchor does not match the file's current content".
 * With hashline edits, an anchor that is not `<line>#<hash>` and an end anchor before the start
 * anchor are refused as `invalid_anchor` (not `stale_anchor`: nothing to read again) and the file
 * is left as it was. Control: the anchors read gave edit the file.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const ORIGINAL = "alpha\nbeta\ngamma\n";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-anchor-"));
  await writeFile(path.join(workspace, "h.txt"), ORIGINAL);
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const content = () => readFile(path.join(workspace, "h.txt"), "utf8");

describe("hashline edit anchors", () => {
  it("refuses a malformed anchor and an end before the start as invalid_anchor, changing nothing", async () => {
    const run = createRegistry({ tools: createFileTools({ root: workspace, hashline: true }) }).createRun({ profile: "full" });
    const listing = await run.call("read", { path: "h.txt" });
    const anchors = [...JSON.stringify(listing).matchAll(/(\d)#([0-9a-f]{4})/g)].map((match) => match[0]);
    const [first, second, third] = anchors;
    expect(third).toBeDefined();
    for (const start_anchor of ["two", "2", "#abcd", "2#xyz!"]) {
      expect(code(await run.call("edit", { path: "h.txt", start_anchor, new_text: "X" })), start_anchor).toBe("invalid_anchor");
    }
    expect(code(await run.call("edit", { path: "h.txt", start_anchor: third, end_anchor: first, new_text: "X" }))).toBe(
      "invalid_anchor",
    );
    expect(await content()).toBe(ORIGINAL);
    // Control: the anchors as read edit the file.
    expect(code(await run.call("edit", { path: "h.txt", start_anchor: first, end_anchor: second, new_text: "A\nB" }))).toBe("ok");
    expect(await content()).toBe("A\nB\ngamma\n");
  });
});
