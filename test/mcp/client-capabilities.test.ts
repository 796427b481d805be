import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { InMemoryQuestionBroker, type UserQuestion } from "agent-tool-catalog/host";
import {
  connectMcpServer,
  type McpSamplingRequest,
  type McpStdioServerConfig,
  mcpElicitationFromQuestionBroker,
  mcpSamplingFromAiSdk,
  registerMcpGroup,
} from "agent-tool-catalog/mcp";
import { generateText } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "./support/wait-for.js";

// The reference "everything" server from npm: a third-party server that lists its sampling,
// elicitation and roots tools only to a client that declares those capabilities.
const everythingBin = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const everything = (name: string): McpStdioServerConfig => ({
  name,
  command: process.execPath,
  args: [everythingBin, "stdio"],
  connectTimeoutMs: 20_000,
});

let registry: Registry;

afterEach(async () => {
  await registry.close();
});

async function text(run: ReturnType<Registry["createRun"]>, tool: string, input: object = {}): Promise<string> {
  run.activate([tool]);
  const result = await run.call(tool, input);
  if (!result.ok) throw new Error(`${tool}: ${result.error.code} ${result.error.message}`);
  return String(result.output);
}

describe("MCP client capabilities against @modelcontextprotocol/server-everything", () => {
  it("declares nothing by default: the server lists none of the tools that need sampling, elicitation or roots", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, everything("plain"));
    const tools = handle.tools().map((tool) => tool.mcpName);
    expect(tools).toContain("echo");
    expect(tools).not.toContain("trigger-sampling-request");
    expect(tools).not.toContain("trigger-elicitation-request");
    expect(tools).not.toContain("get-roots-list");
  }, 30_000);

  it("answers sampling with an AI SDK model, elicitation through the question broker, and roots from the run's workspace", async () => {
    registry = createRegistry();
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "mcp-roots-")));
    const run = registry.createRun({ runId: "caps", permissions: { workspace } });
    const prompts: LanguageModelV3CallOptions[] = [];
    const model = new MockLanguageModelV3({
      modelId: "mock-sampler",
      doGenerate: async (options) => {
        prompts.push(options);
        return {
          content: [{ type: "text", text: "sampled: forty-two" }],
          finishReason: { unified: "stop", raw: undefined },
          usage: {
            inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
            outputTokens: { total: 1, text: 1, reasoning: 0 },
          },
          warnings: [],
        };
      },
    });
    const asked: McpSamplingRequest[] = [];
    const questions: UserQuestion[] = [];
    const broker = new InMemoryQuestionBroker({
      onQuestion: (question) => {
        questions.push(question);
        // A user answering: continue, then each field in their own words or by choice.
        const reply: Record<string, string[]> = {
          "plain-0": ["Continue"],
          name: ["Ada Lovelace"],
          check: ["Yes"],
          integer: ["7"],
          untitledMultipleSelectEnum: ["Piano", "Violin"],
        };
        const key = question.header === "caps_srv" ? "plain-0" : (question.header ?? "");
        queueMicrotask(() => broker.answer(question.id, { answers: reply[key] ?? [question.options[0]?.label ?? ""] }));
      },
    });
    const handle = await connectMcpServer(registry, everything("caps_srv"), {
      run,
      client: {
        sampling: mcpSamplingFromAiSdk({
          model,
          generateText,
          maxTokens: 50,
          approve: (request) => {
            asked.push(request);
            return true;
          },
        }),
        elicitation: mcpElicitationFromQuestionBroker(broker),
      },
    });
    await waitFor(
      () =>
        ["trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"].every((name) =>
          handle.tools().some((tool) => tool.mcpName === name),
        ),
      "the capability tools to be listed",
      10_000,
    );

    const sampled = await text(run, "mcp_caps_srv_trigger_sampling_request", {
      prompt: "What is six times seven?",
      maxTokens: 500,
    });
    expect(sampled).toContain("sampled: forty-two");
    expect(sampled).toContain("mock-sampler");
    expect(asked[0]?.maxTokens).toBe(500);
    // The host's cap wins over the server's 500.
    expect(prompts[0]?.maxOutputTokens).toBe(50);
    expect(JSON.stringify(prompts[0]?.prompt)).toContain("What is six times seven?");

    const roots = await text(run, "mcp_caps_srv_get_roots_list");
    expect(roots).toContain(pathToFileURL(workspace).href);

    const elicited = await text(run, "mcp_caps_srv_trigger_elicitation_request");
    expect(elicited).toContain("User provided the requested information");
    expect(elicited).toContain("Name: Ada Lovelace");
    expect(elicited).toContain("Agreed to terms: true");
    expect(elicited).toContain("Favorite Integer: 7");
    expect(questions[0]?.question).toContain('The MCP server "caps_srv" asks');
    expect(questions.find((question) => question.header === "check")?.options.map((option) => option.label)).toEqual([
      "Yes",
      "No",
    ]);
  }, 60_000);

  it("cancels the form when the user dismisses a question, and the server hears a refusal of sampling as an error", async () => {
    registry = createRegistry();
    const broker = new InMemoryQuestionBroker({
      onQuestion: (question) => queueMicrotask(() => broker.dismiss(question.id)),
    });
    const handle = await connectMcpServer(registry, everything("refuse"), {
      client: {
        sampling: async () => {
          throw new Error("secret internal detail: /home/host/.keys");
        },
        elicitation: mcpElicitationFromQuestionBroker(broker),
      },
    });
    await waitFor(
      () => handle.tools().some((tool) => tool.mcpName === "trigger-elicitation-request"),
      "the elicitation tool to be listed",
      10_000,
    );
    const run = registry.createRun();
    const elicited = await text(run, "mcp_refuse_trigger_elicitation_request");
    expect(elicited).toMatch(/cancel/i);
    run.activate(["mcp_refuse_trigger_sampling_request"]);
    const sampled = await run.call("mcp_refuse_trigger_sampling_request", { prompt: "hi" });
    expect(sampled).toMatchObject({ ok: false, error: { code: "mcp_tool_error" } });
    // The server's tool fails; the host's error text never reaches the server (or the model).
    expect(JSON.stringify(sampled)).not.toContain("secret internal detail");
  }, 60_000);
});

describe("MCP prompts of @modelcontextprotocol/server-everything", () => {
  it("are listed and filled in for the host, and as the deferred tools list_mcp_prompts / get_mcp_prompt", async () => {
    registry = createRegistry();
    const servers = await registerMcpGroup(registry, { servers: [everything("ev")] });
    const handle = servers?.get("ev");
    if (handle === undefined) throw new Error(`not connected: ${JSON.stringify(servers?.failures)}`);
    expect(handle.supportsPrompts).toBe(true);
    const page = await handle.listPrompts();
    expect(page.prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(["simple-prompt", "args-prompt"]));
    const filled = await handle.getPrompt("args-prompt", { city: "Lyon" });
    expect(JSON.stringify(filled.messages)).toContain("Lyon");

    expect(registry.get("get_mcp_prompt")).toMatchObject({ tier: "deferred" });
    const run = registry.createRun();
    expect(run.search("mcp prompt template").map((hit) => hit.name)).toEqual(
      expect.arrayContaining(["list_mcp_prompts", "get_mcp_prompt"]),
    );
    const listed = JSON.parse(await text(run, "list_mcp_prompts")) as {
      servers: { server: string; prompts: { name: string; arguments: { name: string; required: boolean }[] }[] }[];
    };
    const args = listed.servers[0]?.prompts.find((prompt) => prompt.name === "args-prompt");
    expect(args?.arguments).toEqual(expect.arrayContaining([expect.objectContaining({ name: "city", required: true })]));
    const got = await text(run, "get_mcp_prompt", {
      server: "ev",
      name: "args-prompt",
      arguments: { city: "Lyon", state: "Rhone" },
    });
    expect(got).toMatch(/^user: .*Lyon, Rhone/m);
    run.activate(["get_mcp_prompt"]);
    expect(await run.call("get_mcp_prompt", { server: "nope", name: "x" })).toMatchObject({
      ok: false,
      error: { code: "unknown_mcp_server" },
    });
  }, 60_000);
});
