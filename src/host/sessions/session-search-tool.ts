import {
  type AnyToolDefinition,
  BUILTIN_TAG,
  CORE_SET_TAG,
  defineTool,
  SearchIndex,
  type ToolGroup,
  tokenize,
} from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { StoredTranscriptEntry, TranscriptStore } from "./transcript-store.js";

/**
 * Options of {@link sessionSearchToolGroup}.
 *
 * @public
 */
export interface SessionSearchOptions {
  /** Where transcripts are kept (fill it with `recordRunTranscript` and your messages); without one the group is absent. */
  readonly store?: TranscriptStore;
  /** Newest entries searched per call: a whole number at least 1, or `Infinity`. @defaultValue 5000 */
  readonly maxEntries?: number;
}

const schemas = lazySchemas((z) => {
  const searchInput = z.object({
    query: z.string().trim().min(1).max(500).describe("Words to look for: a file, an error, a decision, a tool"),
    scope: z
      .enum(["session", "earlier", "all"])
      .optional()
      .describe("session: this conversation; earlier: past ones; all: both (default all)"),
    kinds: z
      .array(z.enum(["message", "tool_call", "tool_result"]))
      .min(1)
      .optional()
      .describe("Only these kinds of entries (default all)"),
    limit: z.number().int().min(1).max(50).optional().describe("Most hits (default 8)"),
  });
  return { searchInput };
});

const SNIPPET_CHARS = 300;

/** The part of `text` around the first query word it contains. */
function snippetOf(text: string, query: string): string {
  const lower = text.toLowerCase();
  const words = tokenize(query);
  let at = -1;
  for (const word of words) {
    const found = lower.indexOf(word.slice(0, Math.max(3, word.length - 2)));
    if (found >= 0 && (at < 0 || found < at)) at = found;
  }
  const start = Math.max(0, at - SNIPPET_CHARS / 3);
  const cut = text.slice(start, start + SNIPPET_CHARS);
  return `${start > 0 ? "..." : ""}${cut}${start + SNIPPET_CHARS < text.length ? "..." : ""}`;
}

/**
 * Ranks entries with the catalog's own BM25F index (the one `find_tool` uses): the tool or role
 * is the name field, the text the description.
 */
function rank(entries: readonly StoredTranscriptEntry[], query: string, limit: number) {
  const index = new SearchIndex({
    fields: { name: { weight: 1.5, lengthNormalization: 0.3 }, tags: { weight: 0.5, lengthNormalization: 0.3 } },
  });
  const bySeq = new Map<string, StoredTranscriptEntry>();
  for (const entry of entries) {
    const id = String(entry.seq);
    bySeq.set(id, entry);
    index.set({ id, name: entry.toolName ?? entry.role ?? entry.kind, description: entry.text, tags: [entry.kind] });
  }
  index.build();
  return index.search(query, limit).flatMap((hit) => {
    const entry = bySeq.get(hit.name);
    return entry === undefined ? [] : [{ entry, score: hit.score }];
  });
}

/**
 * `session_search`: searches transcripts (messages, tool calls, tool results) of this
 * conversation and earlier ones, ranked like `find_tool`, and returns short snippets.
 * @public
 */
export function createSessionSearchTool(store: TranscriptStore, options: SessionSearchOptions = {}): AnyToolDefinition {
  checkNumberOption(options.maxEntries, "maxEntries", { min: 1, integer: true, infinite: true }, "createSessionSearchTool");
  return defineTool({
    name: "session_search",
    description:
      "Search the transcript of this session and earlier ones (messages, tool calls, tool results) for what was said or done; returns ranked snippets.",
    inputSchema: schemas().searchInput,
    tier: "deferred",
    annotations: { title: "Search sessions", readOnlyHint: true },
    tags: [BUILTIN_TAG, CORE_SET_TAG, "session", "history", "transcript", "search", "memory", "recall"],
    handler: async (input, context) => {
      const scope = input.scope ?? "all";
      const maxEntries = options.maxEntries ?? 5000;
      const entries = await store.entries({
        ...(scope === "session" ? { runId: context.runId } : {}),
        ...(scope === "earlier" ? { excludeRunId: context.runId } : {}),
        limit: maxEntries,
      });
      const kinds = input.kinds === undefined ? undefined : new Set<string>(input.kinds);
      // Searches are in the transcript too (this very call already is): their inputs hold queries
      // and their results echo other entries, so they would only ever match themselves.
      const candidates = entries.filter(
        (entry) => entry.toolName !== context.toolName && (kinds === undefined || kinds.has(entry.kind)),
      );
      const hits = rank(candidates, input.query, input.limit ?? 8);
      return {
        searched: candidates.length,
        hits: hits.map(({ entry, score }) => ({
          session: entry.runId === context.runId ? "this" : entry.runId,
          kind: entry.kind,
          ...(entry.role === undefined ? {} : { role: entry.role }),
          ...(entry.toolName === undefined ? {} : { tool: entry.toolName }),
          at: isoTime(entry.at),
          score: Math.round(score * 100) / 100,
          snippet: snippetOf(entry.text, input.query),
        })),
        ...(hits.length === 0 ? { hint: "No match: try other words, or scope all." } : {}),
      };
    },
  });
}

/**
 * `session_search`, present when a transcript `store` is given.
 *
 * @public
 */
export function sessionSearchToolGroup(options: SessionSearchOptions): ToolGroup {
  checkNumberOption(options.maxEntries, "maxEntries", { min: 1, integer: true, infinite: true }, "sessionSearchToolGroup");
  const { store } = options;
  return {
    name: "session_search",
    enabled: store !== undefined,
    tools: () => (store === undefined ? [] : [createSessionSearchTool(store, options)]),
  };
}
