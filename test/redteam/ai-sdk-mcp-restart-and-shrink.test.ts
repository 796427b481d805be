/**
 * Red team round 15: the Vercel AI SDK runs a step's calls at the same time. Here they go to one
 * real stdio MCP server that dies in the middle of them, and to find_tool while the server removes
 * the tool it selects. Every call gets a structured result, the server restarts once, the loop
 * ends. These held on the code they were written against.
 */
import { fileURLToPath } from "node:url";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { createRegistry, EventBus, type Registry } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { connectMcpServer, type McpEvents } from "agent-tool-catalog/mcp";
import { generateText, type ModelMessage, stepCountIs } from "ai";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../mcp/support/wait-for.js";
import { liveWith, runMark } from "../support/live-processes.js";
import { toolCall as call, scriptedModel as scripted } from "../support/scripted-model.js";

const hostile = fileURLToPath(new URL("../mcp/servers/hostile-protocol-server.mjs", import.meta.url));
const shrinking = fileURLToPath(new URL("../mcp/servers/shrinking-server.mjs", import.meta.url));
let registry: Registry;
afterEach(async () => {
  await registry.close();
});

/** The tool results the model was sent, by call id, as text. */
function results(seen: readonly LanguageModelV3CallOptions[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const message of seen.at(-1)?.prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") out.set(part.toolCallId, JSON.stringify(part.output));
  }
  return out;
}

describe("parallel AI SDK calls to one stdio MCP server", () => {
  it("the server dies in a step of four calls, the next step's six calls restart it once", async () => {
    registry = createRegistry();
    const mark = `mark-${runMark()}`;
    const events = new EventBus<McpEvents>();
    const seen: string[] = [];
    events.on("server.connected", ({ reconnect }) => seen.push(reconnect ? "reconnected" : "connected"));
    await connectMcpServer(registry, { name: "dies", command: process.execPath, args: [hostile, "die", mark] }, { events });
    const run = registry.createRun();
    run.activate(["mcp_dies_hostile", "mcp_dies_echo"]);
    const echo = (id: string) => call(id, "mcp_dies_echo", { text: id });
    const script = scripted([
      [call("h", "mcp_dies_hostile", {}), echo("a"), echo("b"), echo("c")],
      ["d", "e", "f", "g", "i", "j"].map(echo),
    ]);
    const { tools, prepareStep } = createAiSdkTools(run);
    const sdk = await generateText({ model: script.model, tools, prepareStep, stopWhen: stepCountIs(5), prompt: "go" });
    expect(sdk.text).toBe("done");
    const first = sdk.steps[0]?.toolResults ?? [];
    expect(first).toHaveLength(4);
    expect(JSON.stringify(first.find((result) => result.toolCallId === "h")?.output)).toContain("mcp_server_closed");
    const second = results(script.seen);
    expect(["d", "e", "f", "g", "i", "j"].map((id) => second.get(id))).toEqual(
      ["d", "e", "f", "g", "i", "j"].map((id) => JSON.stringify({ type: "text", value: id })),
    );
    expect(seen).toEqual(["connected", "reconnected"]);
    expect(liveWith(mark)).toBe(1);
  }, 60_000);

  it("find_tool selects a tool in the step whose other call removes it: the next step neither offers nor runs it", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, { name: "shrinks", command: process.execPath, args: [shrinking] });
    const run = registry.createRun();
    run.activate(["mcp_shrinks_shrink"]);
    const script = scripted([
      [call("s", "mcp_shrinks_shrink", {}), call("f", "find_tool", { query: "select:mcp_shrinks_gone" })],
      [call("g", "mcp_shrinks_gone", {}), call("e", "find_tool", { query: "select:mcp_shrinks_echo" })],
      [call("x", "mcp_shrinks_echo", { text: "x" })],
    ]);
    const aiSdk = createAiSdkTools(run);
    const { tools } = aiSdk;
    // The refresh after list_changed is debounced: the second step is prepared once it landed.
    const prepareStep = async (options: { readonly stepNumber: number; readonly messages: ModelMessage[] }) => {
      if (options.stepNumber === 1) await waitFor(() => !handle.status.tools.includes("mcp_shrinks_gone"), "the list to shrink");
      return aiSdk.prepareStep(options);
    };
    const sdk = await generateText({ model: script.model, tools, prepareStep, stopWhen: stepCountIs(6), prompt: "go" });
    expect(sdk.text).toBe("done");
    expect(script.seen[1]?.tools?.map((tool) => tool.name)).not.toContain("mcp_shrinks_gone");
    const gone = JSON.stringify(
      sdk.steps[1]?.toolResults.find((result) => result.toolCallId === "g")?.output ?? sdk.steps[1]?.content,
    );
    // The AI SDK answers it itself (the tool is not in the step's set): a tool error, the loop goes on.
    expect(gone).toContain("unavailable tool 'mcp_shrinks_gone'");
    // Positive control: the tool that stayed is selected, offered and runs.
    expect(script.seen[2]?.tools?.map((tool) => tool.name)).toContain("mcp_shrinks_echo");
    expect(JSON.stringify(sdk.steps[2]?.toolResults[0]?.output)).toContain("echo ran");
  }, 60_000);
});
