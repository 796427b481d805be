import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InProcessWorkflowService, profileToolGroup, skillToolGroup, workflowToolGroup } from "../host/index.js";
import { createRegistry, type Registry } from "../registry/registry.js";
import type { ToolCallResult } from "../tool/tool-call-result.js";
import { createFileTools } from "../tools/index.js";
import type { FindToolOutput } from "./find-tool.js";

function output(result: ToolCallResult): FindToolOutput {
  if (!result.ok) throw new Error(`find_tool failed: ${JSON.stringify(result.error)}`);
  return result.output as FindToolOutput;
}

/** The real built-in file tools and the host's authoring tools, as a host registers them. */
describe("find_tool with the real built-in tools", () => {
  let directory: string;
  let registry: Registry;

  beforeAll(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "find-tool-builtins-"));
    registry = createRegistry({
      tools: createFileTools({ root: directory }),
      groups: [
        profileToolGroup({ profilesDir: path.join(directory, "profiles") }),
        skillToolGroup({ skillsDir: path.join(directory, "skills") }),
        workflowToolGroup({
          service: new InProcessWorkflowService({
            runner: { prompt: async () => ({ text: "", usage: { inputTokens: 0, outputTokens: 0 } }) } as never,
          }),
        }),
      ],
    });
  });
  afterAll(() => rm(directory, { recursive: true, force: true }));

  const names = (query: string) => registry.search(query, { limit: 10 }).map((hit) => hit.name);

  it("registered the tools the cases name", () => {
    for (const name of ["glob", "grep", "write", "download", "create_profile", "create_skill", "create_workflow"]) {
      expect(registry.has(name), name).toBe(true);
    }
  });

  it('ranks download first for "save a URL to disk"', () => {
    expect(names("save a URL to disk")[0]).toBe("download");
  });

  it("ranks glob above grep for finding files by name, and grep first for searching contents", () => {
    for (const query of ["find files matching *.go", "find all .ts files", "list files matching a pattern"]) {
      const ranked = names(query);
      expect(ranked.indexOf("glob"), query).toBeLessThan(ranked.indexOf("grep"));
    }
    // The control: a contents query still prefers grep.
    expect(names("search for a string in files")[0]).toBe("grep");
  });

  it("ranks write above the authoring tools (create_profile, create_skill, create_workflow) for creating a file", () => {
    for (const query of ["create a new file", "create a file", "make a new file", "write a new file to disk"]) {
      const ranked = names(query);
      expect(ranked[0], query).toBe("write");
    }
    // The control: creating a skill still finds create_skill first.
    expect(names("create a new skill")[0]).toBe("create_skill");
  });

  it("finds built-ins that the default profile places in the toolbox index", async () => {
    const run = registry.createRun();
    expect(run.isListed("glob")).toBe(true);
    const found = output(await run.call("find_tool", { query: "find files matching *.go" }));
    expect(found.via_toolbox.map((tool) => tool.name)[0]).toBe("glob");
    expect(found.activated.map((tool) => tool.name)).not.toContain("glob");
    const download = output(await run.call("find_tool", { query: "save a URL to disk" }));
    expect([...download.via_toolbox, ...download.activated].map((tool) => tool.name)).toContain("download");
    expect(found.message).toMatch(/toolbox/);
  });
});
