/**
 * Red team round 29: JSON bombs from a hostile stdio MCP server. V8 parses JSON nested far deeper
 * than its stack (`JSON.parse` is not recursive), but most code that walks a value afterwards is
 * (`JSON.stringify`, schema checks, the SDK's own checks): a value 200,000 levels deep, in a call's
 * result, in notifications and a request of the server's own sent while a call runs, or in a listed
 * tool, must cost that call (or that tool) at most, never the host process, its event loop or the
 * server's other tools. The server (`support/r29-deep-json-server.mjs`) builds the text by hand.
 * Controls: the same server's plain tool answers after each bomb, and a result nested 20 deep
 * reaches the model whole.
 */
import { fileURLToPath } from "node:url";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";

const server = fileURLToPath(new URL("./support/r29-deep-json-server.mjs", import.meta.url));
const DEPTH = 200_000;
const TOOLS = ["mcp_deep_ok", "mcp_deep_bomb", "mcp_deep_deep_output"];

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function connect(where: "result" | "notify" | "list", depth = DEPTH) {
  registry = createRegistry();
  await connectMcpServer(registry, { name: "deep", command: process.execPath, args: [server, where, String(depth)] });
  const loadModes = Object.fromEntries(TOOLS.map((name) => [name, "essential" as const]));
  return { registry, run: registry.createRun({ loadModes }) };
}

describe("escape attempts: JSON bombs from an MCP server", () => {
  escapeAttempt(
    "resources",
    "a call's result, notifications and a server request nested 200,000 deep: that call fails or answers, the host and the server's other tools go on",
    async () => {
      // The call's result: structuredContent and _meta 200,000 deep. Only this call fails.
      const bombed = await connect("result");
      const result = await bombed.run.call("mcp_deep_bomb", {});
      expect(result).toMatchObject({ ok: false });
      expect(await bombed.run.call("mcp_deep_ok", {})).toMatchObject({ ok: true, output: "ok ran" });
      await bombed.registry.close();
      // Notifications (message, list_changed, progress, cancelled) and a roots/list request with
      // params as deep, before the call's plain answer: the call answers, so does the next one.
      const notified = await connect("notify");
      expect(await notified.run.call("mcp_deep_bomb", {})).toMatchObject({ ok: true, output: "bomb ran" });
      expect(await notified.run.call("mcp_deep_ok", {})).toMatchObject({ ok: true, output: "ok ran" });
      await notified.registry.close();
      // Control: a result 20 deep is the tool's answer, whole.
      const shallow = await connect("result", 20);
      const answer = await shallow.run.call("mcp_deep_bomb", {});
      expect(answer).toMatchObject({ ok: true, output: `{"x":${"[".repeat(20)}${"]".repeat(20)}}` });
    },
    60_000,
  );

  escapeAttempt(
    "resources",
    "a listed tool whose annotations and _meta are nested 200,000 deep, and one whose output schema is: the listing stands, the deep schema's tool is refused alone",
    async () => {
      const { registry: listed, run } = await connect("list");
      const names = listed.list().map((tool) => tool.name);
      // The deep output schema is refused (it cannot be checked), the tool with deep annotations is
      // kept without them, and the plain tool is there.
      expect(names).toContain("mcp_deep_ok");
      expect(names).toContain("mcp_deep_bomb");
      expect(names).not.toContain("mcp_deep_deep_output");
      expect(await run.call("mcp_deep_bomb", {})).toMatchObject({ ok: true, output: "bomb ran" });
      expect(await run.call("mcp_deep_ok", {})).toMatchObject({ ok: true, output: "ok ran" });
      // What a provider adapter sends for the run's tools serializes (a deep value kept in a
      // definition would make every model request of the run throw).
      expect(() => JSON.stringify(listed.list())).not.toThrow();
    },
    60_000,
  );
});
