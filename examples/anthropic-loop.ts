/**
 * An Anthropic Messages API tool loop over a small registry: a core tool, and a deferred tool the
 * model finds and activates with `find_tool`. With ANTHROPIC_API_KEY set it talks to the real API
 * (`@anthropic-ai/sdk`); without, a fake client replays recorded responses
 * (test/fixtures/anthropic/find-tool-turn-*.json). Run it with `npx tsx examples/anthropic-loop.ts`.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { createRegistry, defineTool } from "agent-tool-catalog";
import {
  type AnthropicMessagesClient,
  type AnthropicMessagesRequest,
  type AnthropicMessagesResponse,
  type AnthropicToolLoopResult,
  anthropicToolLoop,
} from "agent-tool-catalog/anthropic";
import { z } from "zod";

// A core tool: sent on every turn.
const readNote = defineTool({
  name: "read_note",
  description: "Read a note by its title.",
  inputSchema: z.object({ title: z.string() }),
  handler: ({ title }) => `Note "${title}": fly to Lisbon on Friday.`,
});

// A deferred tool: hidden until the model activates it with find_tool.
const forecast = defineTool({
  name: "weather_forecast",
  description: "Get the weather forecast for a city for the next days.",
  tier: "deferred",
  tags: ["weather"],
  inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(3) }),
  handler: ({ city, days }) => ({
    city,
    forecast: Array.from({ length: days }, (_, day) => ({ day: day + 1, sky: "sunny", maxC: 24 + day })),
  }),
});

const RECORDED = ["find-tool-turn-1", "find-tool-turn-2", "find-tool-turn-3"];

/**
 * A client that answers with the recorded responses in order. Like a scripted model, it fails when
 * a response calls a tool the request did not offer, or when asked once more than recorded.
 */
export function recordedClient(names: readonly string[] = RECORDED): AnthropicMessagesClient {
  let turn = 0;
  return {
    messages: {
      create: async (params: AnthropicMessagesRequest): Promise<AnthropicMessagesResponse> => {
        const name = names[turn++];
        if (name === undefined) throw new Error(`no recorded response for request ${turn}`);
        const url = new URL(`../test/fixtures/anthropic/${name}.json`, import.meta.url);
        const response = JSON.parse(readFileSync(url, "utf8")) as AnthropicMessagesResponse;
        const offered = new Set((params.tools ?? []).map((tool) => tool.name));
        for (const block of response.content) {
          const called = block.type === "tool_use" ? (block as { name?: string }).name : undefined;
          if (called !== undefined && !offered.has(called)) throw new Error(`${name} calls ${called}, which was not offered`);
        }
        return response;
      },
    },
  };
}

/** Options of {@link main}. */
export interface MainOptions {
  /** Where the transcript goes. @defaultValue `console.log` */
  readonly log?: (line: string) => void;
  /** Talk to the real API. @defaultValue true when ANTHROPIC_API_KEY is set */
  readonly live?: boolean;
}

/** Runs the loop and prints the transcript; returns what the loop did. */
export async function main(options: MainOptions = {}): Promise<AnthropicToolLoopResult<AnthropicMessagesClient>> {
  const log = options.log ?? console.log;
  const live = options.live ?? process.env.ANTHROPIC_API_KEY !== undefined;
  const registry = createRegistry({ tools: [readNote, forecast] });
  const run = registry.createRun();
  run.events.on("tool.activated", ({ name, via }) => log(`  event tool.activated: ${name} (via ${via})`));

  let client: AnthropicMessagesClient = recordedClient();
  if (live) {
    const { default: Anthropic } = await import("@anthropic-ai/sdk");
    client = new Anthropic();
  }
  const result = await anthropicToolLoop(run, {
    client,
    model: process.env.ANTHROPIC_MODEL ?? "claude-sonnet-4-5",
    system: "You are a travel assistant. Use the tools you have; find_tool finds more.",
    messages: [{ role: "user", content: "I'm going on the trip in my note. What will the weather be like?" }],
    maxTokens: 1024,
    maxTurns: 6,
  });
  for (const message of result.messages) printMessage(message.role, message.content, log);
  log(`stop: ${String(result.stopReason)} after ${result.turns} request(s)`);
  return result;
}

function printMessage(role: string, content: unknown, log: (line: string) => void): void {
  if (typeof content === "string") {
    log(`${role}: ${content}`);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const block of content as Record<string, unknown>[]) {
    if (block.type === "text") log(`${role}: ${String(block.text)}`);
    else if (block.type === "tool_use") log(`${role} calls ${String(block.name)}(${JSON.stringify(block.input)})`);
    else if (block.type === "tool_result")
      log(`  result${block.is_error === true ? " (error)" : ""}: ${String(block.content ?? "")}`);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
