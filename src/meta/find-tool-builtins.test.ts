import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InProcessWorkflowService, profileToolGroup, skillToolGroup, workflowToolGroup } from "../host/index.js";
import { createRegistry, type Registry } from "../registry/registry.js";
import type { ToolCallResult } from "../run/tool-call-result.js";
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
