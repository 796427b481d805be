import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { planMcpToolNames } from "./plan-mcp-tool-names.js";

const tool = (name: string): Tool => ({ name, inputSchema: { type: "object" } });

describe("planMcpToolNames", () => {
  it("names unique tools and rejects every member of a colliding group, whatever the order", () => {
    for (const order of [
      ["Read-File", "echo", "read.file", "read_file"],
      ["read_file", "read.file", "echo", "Read-File"],
    ]) {
      const plan = planMcpToolNames("fs", order.map(tool));
      expect(plan.planned.map((entry) => entry.name)).toEqual(["mcp_fs_echo"]);
      expect(plan.rejected.map((entry) => entry.mcpName).sort()).toEqual(["Read-File", "read.file", "read_file"]);
      expect(plan.rejected.every((entry) => entry.reason === "name_collision" && entry.name === "mcp_fs_read_file")).toBe(true);
    }
  });

  it("rejects a tool listed twice", () => {
    expect(planMcpToolNames("fs", [tool("a"), tool("a")]).rejected).toHaveLength(2);
  });
});
