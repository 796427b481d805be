// The note and weather tools the provider adapter tests (Anthropic, OpenAI chat and responses)
// build their catalogs from: a core reader, a deferred mutating delete, a deferred forecast.
import { defineTool } from "agent-tool-catalog";
import { z } from "zod";

/** Core: reads a note by its title. */
export function readNoteTool() {
  return defineTool({
    name: "read_note",
    description: "Read a note by its title.",
    inputSchema: z.object({ title: z.string() }),
    handler: ({ title }) => `Note "${title}": fly to Lisbon on Friday.`,
  });
}

/** Deferred and mutating: deletes a note, recording its title in `deleted`. */
export function deleteNoteTool(deleted: string[]) {
  return defineTool({
    name: "delete_note",
    description: "Delete a note permanently.",
    tier: "deferred",
    mutating: true,
    inputSchema: z.object({ title: z.string() }),
    handler: ({ title }) => {
      deleted.push(title);
      return `deleted ${title}`;
    },
  });
}

/** Deferred: a sunny forecast for `days` (1-7, default 3) days, tagged with `tags` when given. */
export function weatherForecastTool(tags?: string[]) {
  return defineTool({
    name: "weather_forecast",
    description: "Get the weather forecast for a city for the next days.",
    tier: "deferred",
    ...(tags === undefined ? {} : { tags }),
    inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(3) }),
    handler: ({ city, days }) => ({ city, days, sky: "sunny" }),
  });
}
