import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRegistry, fileToolOptionsFromConfig, parseToolConfig } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { describe, expect, it } from "vitest";

describe("[tools] redo and hashline_edit take effect (issue 19.6)", () => {
  it("fileToolOptionsFromConfig turns them into createFileTools options", async () => {
    const workspace = mkdtempSync(join(tmpdir(), "cfg-"));
    writeFileSync(join(workspace, "a.txt"), "one\ntwo\n");
    const on = parseToolConfig("[tools]\nredo = true\nhashline_edit = true\n");
    expect(fileToolOptionsFromConfig(on)).toEqual({ redo: true, hashline: true });
    const run = (config: ReturnType<typeof parseToolConfig>) =>
      createRegistry({ tools: createFileTools({ ...fileToolOptionsFromConfig(config) }) }).createRun({
        profile: "full",
        environment: {},
      });
    const withConfig = run(on);
    const undo = withConfig.definitions().find((tool) => tool.name === "undo");
    expect(undo?.description).toMatch(/redo/);
    const read = await withConfig.call("read", { path: join(workspace, "a.txt") });
    expect(JSON.stringify(read)).toMatch(/1#[0-9a-zA-Z]+\|one/);
    // positive control: without the keys, neither is on
    const off = run(parseToolConfig("[tools]\n"));
    expect(fileToolOptionsFromConfig(parseToolConfig("[tools]\n"))).toEqual({});
    expect(off.definitions().find((tool) => tool.name === "undo")?.description).not.toMatch(/redo/);
  });
});
