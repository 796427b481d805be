/**
 * A custom harness loop on the Vercel AI SDK: built-in file tools in a workspace sandbox, a
 * deferred host tool found through find_tool mid-loop, and approval for mutating calls.
 * Without ANTHROPIC_API_KEY it runs on the SDK's MockLanguageModelV3 with a scripted
 * conversation; with a key it asks Claude.
 *   npx tsx examples/ai-sdk-harness.ts
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Content } from "@ai-sdk/provider";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { createFileTools } from "agent-tool-catalog/tools";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

const changelogTool = defineTool({
  name: "changelog_entry",
  description: "Format a Keep a Changelog entry for a change.",
  tier: "deferred",
  tags: ["changelog", "release notes"],
  inputSchema: z.object({ kind: z.enum(["Added", "Changed", "Fixed"]), text: z.string() }),
  handler: ({ kind, text }) => `### ${kind}\n- ${text}\n`,
});

/** The scripted conversation used when no API key is set. */
function scriptedModel(): LanguageModelV3 {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const call = (id: string, name: string, input: unknown): LanguageModelV3Content => ({
    type: "tool-call",
    toolCallId: id,
    toolName: name,
    input: JSON.stringify(input),
  });
  const steps: ((options: LanguageModelV3CallOptions) => LanguageModelV3Content[])[] = [
    (options) => {
      // The scripted model, like a real one, knows the listed tools only from the index.
      const system = options.prompt.filter((message) => message.role === "system").map((message) => message.content);
      if (!system.some((text) => text.includes("- glob:"))) return [{ type: "text", text: "No index in the prompt." }];
      return [call("1", "find_tool", { query: "changelog entry release notes" })];
    },
    () => [call("2", "changelog_entry", { kind: "Added", text: "A harness example." })],
    (options) => {
      const last = JSON.stringify(options.prompt.at(-1));
      const entry = /### Added\\n- A harness example\.\\n/.test(last) ? "### Added\n- A harness example.\n" : "?";
      return [call("3", "write", { path: "CHANGELOG.md", content: `# Changelog\n\n${entry}` })];
    },
    () => [{ type: "text", text: "Wrote CHANGELOG.md." }],
  ];
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const next = steps[step++];
      if (next === undefined) throw new Error("the script has no more steps");
      const content = next(options);
      const calls = content.some((part) => part.type === "tool-call");
      return { content, finishReason: { unified: calls ? "tool-calls" : "stop", raw: undefined }, usage, warnings: [] };
    },
  });
}

async function chooseModel(): Promise<LanguageModelV3> {
  if (process.env.ANTHROPIC_API_KEY === undefined) return scriptedModel();
  const { anthropic } = await import("@ai-sdk/anthropic");
  return anthropic("claude-sonnet-4-5");
}

/** Runs the harness in a fresh temporary workspace and returns what it did. */
export async function main(
  log: (line: string) => void = console.log,
): Promise<{ text: string; changelog: string; approvals: string[] }> {
  const workspace = await mkdtemp(path.join(tmpdir(), "atc-harness-"));
  try {
    const registry = createRegistry({ tools: [...createFileTools(), changelogTool] });
    const approvals: string[] = [];
    // A host UI would ask a person; this harness approves writes inside the workspace.
    registry.events.on("approval.requested", (request) => {
      approvals.push(request.toolName);
      registry.approvals.approve(request.id);
    });
    const run = registry.createRun({ permissions: { sandbox: "workspace", workspace, approval: "destructive" } });
    // `definitions` types the calls of changelog_entry in result.steps; prepareStep keeps the
    // active tools in step with the run and adds the run's index after the system prompt.
    const { tools, prepareStep } = createAiSdkTools(run, { definitions: { changelog_entry: changelogTool } });
    const index = run.systemPromptIndex();
    log(
      index === undefined
        ? "index: none (every tool is sent or found with find_tool)"
        : `index sent after the system prompt:\n${index}`,
    );
    const result = await generateText({
      model: await chooseModel(),
      system: "You are a careful coding assistant. Keep changes small.",
      tools,
      prepareStep,
      stopWhen: stepCountIs(8),
      prompt: "Add a changelog entry saying we added a harness example, in CHANGELOG.md.",
    });
    for (const step of result.steps) {
      for (const call of step.toolCalls) {
        // Typed: for changelog_entry, `call.input` is { kind: "Added" | "Changed" | "Fixed"; text: string }.
        const detail = !call.dynamic && call.toolName === "changelog_entry" ? ` (kind ${call.input.kind})` : "";
        log(`tool call: ${call.toolName} ${JSON.stringify(call.input)}${detail}`);
      }
    }
    log(`model: ${result.text}`);
    const changelog = await readFile(path.join(workspace, "CHANGELOG.md"), "utf8").catch(() => "");
    return { text: result.text, changelog, approvals };
  } finally {
    await rm(workspace, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
