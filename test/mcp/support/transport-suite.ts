import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer, type McpServerConfig, type McpServerHandle } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "./wait-for.js";

/** A server to test one transport against, and how to stop it. */
export interface TransportSetup {
  readonly config: McpServerConfig;
  readonly teardown: () => Promise<void>;
}

/**
 * The behaviour every transport must share (unstorage's driver suite): connect and register,
 * call through a run, follow list changes, report tool errors and malformed results, close.
 */
export function describeTransportConformance(label: string, setup: (name: string) => Promise<TransportSetup>): void {
  describe(`MCP over ${label}`, () => {
    let registry: Registry;
    let server: TransportSetup;
    let handle: McpServerHandle;

    beforeEach(async () => {
      registry = createRegistry();
      server = await setup("fix");
      handle = await connectMcpServer(registry, server.config);
    });

    afterEach(async () => {
      await registry.close();
      await server.teardown();
    });

    it("registers every tool deferred, named and tagged, and calls it through a run", async () => {
      expect(handle.status).toMatchObject({ name: "fix", state: "connected", serverInfo: { name: "fixture", version: "1.2.3" } });
      const echo = registry.get("mcp_fix_echo");
      expect(echo).toMatchObject({ tier: "deferred", mutating: true, annotations: { title: "Echo text" } });
      expect(echo?.tags).toEqual(["mcp", "integration", "external", "dynamic", "mcp_server:fix"]);
      const run = registry.createRun();
      expect(await run.call("mcp_fix_echo", { text: "hi" })).toMatchObject({ ok: false, error: { code: "tool_not_activated" } });
      run.activate(["mcp_fix_echo"]);
      expect(await run.call("mcp_fix_echo", { text: "hi" })).toMatchObject({ ok: true, output: "hi" });
    });

    it("follows notifications/tools/list_changed: added, updated and removed tools", async () => {
      const run = registry.createRun();
      run.activate(["mcp_fix_add_tool", "mcp_fix_remove_tool", "mcp_fix_redescribe_echo"]);
      await run.call("mcp_fix_add_tool", { name: "fresh" });
      await waitFor(() => registry.has("mcp_fix_fresh"), "the new tool");
      await run.call("mcp_fix_redescribe_echo", {});
      await waitFor(
        () => registry.get("mcp_fix_echo")?.description.startsWith("Echo a text back, louder.") === true,
        "the update",
      );
      await run.call("mcp_fix_remove_tool", { name: "fresh" });
      await waitFor(() => !registry.has("mcp_fix_fresh"), "the removal");
      expect(handle.tools().map((tool) => tool.name)).not.toContain("mcp_fix_fresh");
    });

    it("turns isError results and malformed results into tool errors, and goes on", async () => {
      const run = registry.createRun();
      run.activate(["mcp_fix_fail", "mcp_fix_malformed", "mcp_fix_echo"]);
      expect(await run.call("mcp_fix_fail", {})).toMatchObject({
        ok: false,
        error: { code: "mcp_tool_error", message: expect.stringContaining("no such file: /nope") },
      });
      expect(await run.call("mcp_fix_malformed", {})).toMatchObject({ ok: false, error: { code: "mcp_malformed_result" } });
      expect(await run.call("mcp_fix_echo", { text: "still here" })).toMatchObject({ ok: true, output: "still here" });
    });

    it("removes its tools when closed", async () => {
      await handle.close();
      expect(registry.list().filter((tool) => tool.name.startsWith("mcp_"))).toEqual([]);
      expect(handle.status.state).toBe("closed");
    });
  });
}
