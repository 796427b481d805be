import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";

const tool = (name: string, tier: "core" | "deferred", tags: string[] = []) =>
  defineTool({ name, description: `The ${name} tool.`, tier, tags, inputSchema: z.object({}), handler: () => name });

describe("run.reach: one answer to how a tool reaches the model (issue 16.2)", () => {
  it("maps tier, load mode, profile and allow-list to sent / listed / searchable / off", () => {
    const registry = createRegistry({
      tools: [
        tool("read", "core", ["builtin"]),
        tool("undo", "core", ["builtin"]),
        tool("deploy", "core"),
        tool("billing", "deferred"),
      ],
    });
    const run = registry.createRun({ environment: {}, disabledTools: ["deploy"] });
    expect(run.reach("read")).toBe("sent");
    expect(run.reach("undo")).toBe("listed");
    expect(run.reach("billing")).toBe("searchable");
    expect(run.reach("deploy")).toBe("off");
    expect(run.reach("toolbox")).toBe("sent");
    expect(run.reach("missing")).toBeUndefined();
    run.activate(["billing"]);
    expect(run.reach("billing")).toBe("sent");
    const full = registry.createRun({ profile: "full", environment: {}, allowedTools: ["read"] });
    expect(full.reach("undo")).toBe("off");
    expect(full.reach("toolbox")).toBe("off");
    // The reach agrees with what the run sends.
    const sent = new Set(run.definitions().map((d) => d.name));
    for (const name of ["read", "undo", "deploy", "billing", "toolbox", "find_tool"]) {
      expect(sent.has(name)).toBe(run.reach(name) === "sent");
    }
  });
});
