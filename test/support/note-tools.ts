// The note and weather tools tests build their catalogs from: a core reader, a mutating delete
// (the approval tests' and the adapters' `delete_note`, one definition), a deferred forecast.
import { defineTool, type ToolTier } from "agent-tool-catalog";
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

/** How one test's `delete_note` differs from the others'. */
export interface DeleteNoteOptions {
  /** Told the title of each note deleted (default: nobody). */
  onDelete?: (title: string) => unknown;
  /** The call's answer (default `deleted <title>`). */
  answer?: (title: string) => string;
  /** Default "Delete a note.". */
  description?: string;
  /** Default core. */
  tier?: ToolTier;
}

/**
 * `delete_note`: mutating, so a run with approval "destructive" asks before each call. It deletes
 * nothing: `onDelete` hears the title, which is how a test sees whether a call ran.
 */
export function deleteNoteTool({
  onDelete,
  answer = (title) => `deleted ${title}`,
  description = "Delete a note.",
  tier,
}: DeleteNoteOptions = {}) {
  return defineTool({
    name: "delete_note",
    description,
    ...(tier === undefined ? {} : { tier }),
    mutating: true,
    inputSchema: z.object({ title: z.string() }),
    handler: ({ title }) => {
      onDelete?.(title);
      return answer(title);
    },
  });
}

/** The adapters' `delete_note`: deferred, "Delete a note permanently.", recording each title in `deleted`. */
export function deferredDeleteNoteTool(deleted: string[]) {
  return deleteNoteTool({
    onDelete: (title) => deleted.push(title),
    description: "Delete a note permanently.",
    tier: "deferred",
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
