import { describe, expect, it } from "vitest";
import { z } from "zod";
import { sampleTools } from "../../test/support/sample-tools.js";
import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import type { RegistryChangedEvent } from "../events/catalog-events.js";
import { defineTool } from "../tool/define-tool.js";
import { createRegistry } from "./registry.js";

const tool = (name: string, tier: "core" | "deferred" = "core") =>
  defineTool({ name, description: `The ${name} tool.`, tier, inputSchema: z.object({}), handler: () => name });

describe("createRegistry", () => {
  it("registers tools and always registers find_tool as a core tool", () => {
    const registry = createRegistry({ tools: sampleTools() });
    expect(registry.get("find_tool")?.tier).toBe("core");
    expect(registry.list({ tier: "core" }).map((t) => t.name)).toEqual(["find_tool", "toolbox", "read", "write"]);
    expect(registry.list({ tier: "deferred" }).map((t) => t.name)).toEqual([
      "git_log_search",
      "git_blame_context",
      "web_fetch",
      "cron_create",
    ]);
  });

  it("refuses a duplicate name, naming the group that has it", () => {
    const registry = createRegistry({ groups: [{ name: "files", tools: [tool("read")] }] });
    expect(() => registry.register(tool("read"))).toThrowError(
      expect.objectContaining({
        code: "duplicate_tool_name",
        message: 'A tool named "read" is already registered (group "files").',
      }),
    );
    expect(() => registry.register(tool("find_tool"))).toThrowError(ToolDefinitionError);
  });

  it("skips a disabled group silently and registers an enabled one", () => {
    let built = false;
    const registry = createRegistry({
      groups: [
        {
          name: "cron",
          enabled: () => false,
          tools: () => {
            built = true;
            return [tool("cron_list")];
          },
        },
        { name: "web", enabled: true, tools: [tool("web_search", "deferred")] },
      ],
    });
    expect(built).toBe(false);
    expect(registry.has("cron_list")).toBe(false);
    expect(registry.list({ group: "web" }).map((t) => t.name)).toEqual(["web_search"]);
  });

  it("checks a whole group before registering any of it", () => {
    const registry = createRegistry();
    expect(() => registry.registerGroup({ name: "twice", tools: [tool("a"), tool("b"), tool("a")] })).toThrowError(
      /"a" is already registered/,
    );
    expect(registry.has("b")).toBe(false);
  });

  it("searches every enabled tool, best first, with a limit", () => {
    const registry = createRegistry({ tools: sampleTools() });
    const hits = registry.search("commit history", { limit: 2 });
    expect(hits[0]?.name).toBe("git_log_search");
    expect(hits.length).toBeLessThanOrEqual(2);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
    expect(registry.search("read a file")[0]?.name).toBe("read");
    expect(registry.search("zzzz qqqq")).toEqual([]);
  });

  it("announces changes through handles: disable, enable, update, remove", () => {
    const registry = createRegistry();
    const changes: RegistryChangedEvent[] = [];
    registry.events.on("registry.changed", (change) => changes.push(change));
    const handle = registry.register(tool("lint"));
    const version = registry.version;
    handle.disable();
    expect(registry.has("lint")).toBe(false);
    expect(registry.search("lint")).toEqual([]);
    handle.enable();
    handle.update(defineTool({ name: "lint", description: "Lint the code base.", inputSchema: z.object({}), handler: () => "" }));
    expect(registry.get("lint")?.description).toBe("Lint the code base.");
    expect(() => handle.update(tool("other"))).toThrowError(/cannot rename/);
    handle.remove();
    expect(registry.get("lint")).toBeUndefined();
    expect(handle.enabled).toBe(false);
    expect(registry.version).toBeGreaterThan(version);
    expect(changes.map((c) => [c.added, c.removed, c.updated])).toEqual([
      [["lint"], [], []],
      [[], ["lint"], []],
      [["lint"], [], []],
      [[], [], ["lint"]],
      [[], ["lint"], []],
    ]);
    // A stale handle does nothing once its tool is gone, even if the name is reused.
    registry.register(tool("lint"));
    handle.remove();
    expect(registry.has("lint")).toBe(true);
  });

  it("finds nothing for names that are Object.prototype keys", () => {
    const registry = createRegistry();
    expect(registry.get("constructor")).toBeUndefined();
    expect(registry.has("__proto__")).toBe(false);
  });
});
