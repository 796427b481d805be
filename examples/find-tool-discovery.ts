/**
 * The main example: a scripted fake model discovers a deferred tool with find_tool, activates it
 * and calls it. No API key needed. Run it with `npm run example`.
 */
import { pathToFileURL } from "node:url";
import { createRegistry, defineTool, formatToolResult } from "agent-tool-catalog";
import { type LoopTranscript, runToolLoop, ScriptedModel } from "agent-tool-catalog/testing";
import { z } from "zod";

// A core tool: sent to the model on every turn.
const readNote = defineTool({
  name: "read_note",
  description: "Read a note by its title.",
  inputSchema: z.object({ title: z.string() }),
  handler: ({ title }) => `Note "${title}": buy milk.`,
});

// Deferred tools: hidden until the model activates them with find_tool.
const forecast = defineTool({
  name: "weather_forecast",
  description: "Get the weather forecast for a city for the next days.",
  tier: "deferred",
  tags: ["weather"],
  inputSchema: z.object({
    city: z.string().describe("City name, e.g. Lisbon"),
    days: z.number().int().min(1).max(7).default(3).describe("How many days ahead"),
  }),
  handler: ({ city, days }) => ({
    city,
    days,
    forecast: Array.from({ length: days }, (_, day) => ({ day: day + 1, sky: "sunny", maxC: 24 + day })),
  }),
});

const convert = defineTool({
  name: "currency_convert",
  description: "Convert an amount between two currencies at today's rate.",
  tier: "deferred",
  inputSchema: {
    type: "object",
    properties: { amount: { type: "number" }, from: { type: "string" }, to: { type: "string" } },
    required: ["amount", "from", "to"],
  },
  handler: (input: { amount: number; from: string; to: string }) => ({ ...input, result: input.amount * 1.1 }),
});

/** Runs the example and returns what happened, turn by turn. */
export async function main(log: (line: string) => void = console.log): Promise<LoopTranscript> {
  const registry = createRegistry({ tools: [readNote, forecast, convert] });
  const run = registry.createRun();
  run.events.on("tool.activated", ({ name, via }) => log(`  event tool.activated: ${name} (via ${via})`));

  const model = new ScriptedModel([
    {
      // Turn 1: only core tools are visible, so the model searches.
      expectVisible: ["find_tool", "read_note"],
      expectHidden: ["weather_forecast"],
      respond: { toolCalls: [{ name: "find_tool", args: { query: "weather forecast for a city", limit: 1 } }] },
    },
    {
      // Turn 2: find_tool activated weather_forecast; it is now sent with its schema.
      expectVisible: ["weather_forecast"],
      respond: { toolCalls: [{ name: "weather_forecast", args: '{"city":"Lisbon","days":2}' }] },
    },
    {
      expectVisible: ["weather_forecast"],
      respond: (request) => {
        const last = request.messages.at(-1);
        return { text: `Here is the forecast: ${last?.role === "tool" ? last.content : "?"}` };
      },
    },
  ]);

  const transcript = await runToolLoop(run, model, { prompt: "What will the weather be in Lisbon?" });
  for (const turn of transcript.turns) {
    log(`turn ${turn.turn}: tools sent = [${turn.visibleTools.join(", ")}]`);
    for (const call of turn.calls) log(`  ${call.name}(${JSON.stringify(call.args)}) -> ${formatToolResult(call.result)}`);
    if (turn.response.text !== undefined) log(`  model: ${turn.response.text}`);
  }
  return transcript;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await main();
}
