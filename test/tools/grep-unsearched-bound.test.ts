import { link, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * The files a search leaves out are named, but not without bound: a directory of 100,000 hard
 * links (which the JavaScript engine refuses to read under sandbox `workspace`) answered 6.8 MB of
 * `[not searched: ...]` lines (red team round 34). Names fill up to 64 KiB of lines, the rest are counted.
 */
describe("grep: the list of files not searched is bounded", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-unsearched-"));
    await writeFile(path.join(workspace, "target.txt"), "needle\n");
    await mkdir(path.join(workspace, "few"));
    await mkdir(path.join(workspace, "many"));
    for (let i = 0; i < 3; i++) await link(path.join(workspace, "target.txt"), path.join(workspace, "few", `f${i}`));
    for (let i = 0; i < 2_000; i++)
      await link(path.join(workspace, "target.txt"), path.join(workspace, "many", `f${String(i).padStart(5, "0")}`));
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });
  const grep = async (directory: string) => {
    const run = createRegistry({ tools: [createGrepTool({ engine: "javascript" })] }).createRun({
      profile: "full",
      permissions: { workspace, sandbox: "workspace" },
      // The tool's own bound is under test, not the run's condensing of long outputs.
      condenseThreshold: Number.POSITIVE_INFINITY,
    });
    const result = await run.call("grep", { pattern: "needle", path: directory });
    return result.ok ? String(result.output) : `error:${result.error.code}`;
  };

  it("control: a few files left out are each named with their reason", async () => {
    const output = await grep("few");
    expect(output.match(/^\[not searched: few\/f\d \([^)]+\)\]$/gm)).toHaveLength(3);
    expect(output).not.toContain("more files not named");
  });

  it("2,000 files left out: named up to 64 KiB of lines, the rest counted by reason, the answer bounded", async () => {
    const output = await grep("many");
    const named = output.match(/^\[not searched: many\/f\d{5} /gm)?.length ?? 0;
    expect(named).toBeGreaterThan(500);
    expect(named).toBeLessThan(2_000);
    const count = new RegExp(
      `^\\[not searched: ${2_000 - named} more files not named \\(${2_000 - named} could not be read: hard_link_refused\\); narrow the path to see them\\]$`,
      "m",
    );
    expect(output).toMatch(count);
    expect(output.length).toBeLessThan(70 * 1024);
    expect(output).toMatch(/\[engine: javascript( worker)?\]$/);
  });
});
