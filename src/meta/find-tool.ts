import { countOf } from "../errors/count-of.js";
import { ToolError } from "../errors/tool-error.js";
import { defineTool } from "../tool/define-tool.js";
import { arrayField, integerField, type OutputOf, objectSchema, optional, stringField } from "../tool/object-schema.js";
import type { RunCatalog, SearchHit } from "../tool/tool-context.js";
import type { ToolDefinition } from "../tool/tool-definition.js";
import { markMetaTool } from "./meta-tools.js";
import { oneLineDescription } from "./one-line-description.js";

/**
 * The name of the meta-tool that finds and activates deferred tools.
 *
 * @public
 */
export const FIND_TOOL_NAME = "find_tool";

const SELECT_PREFIX = "select:";
const DEFAULT_LIMIT = 5;
const MAX_QUERIES = 8;
const MAX_RESULTS = 20;

/**
 * A search hit is activated only when its score is at least this share of the best hit's score
 * for the same query: below it, hits are mostly tools that share one incidental word with the
 * request (an unrelated tool at 0.2× the top score used to join the run because the full `limit`
 * was activated whatever the scores). Chosen on the MCP reference servers set at limit 5: 0.4
 * keeps recall@5 within 0.011 of no threshold (0.378 against 0.389) and activates 0.37 fewer
 * wrong tools per query; 0.5 cost 0.045 recall, 0.3 removed almost nothing.
 */
export const FIND_TOOL_RELATIVE_THRESHOLD = 0.4;

const queryText = stringField({ trim: true, min: 1, max: 2000 });
const findToolInput = objectSchema({
  query: optional(queryText, 'Keywords, or "select:<name>"'),
  queries: optional(arrayField(queryText, { min: 1, max: MAX_QUERIES }), "One query per capability (merged)"),
  limit: optional(integerField({ min: 1, max: MAX_RESULTS }), `Most tools per query (default ${DEFAULT_LIMIT})`),
});

/**
 * One tool that `find_tool` reports.
 *
 * @public
 */
export interface FoundTool {
  /** The tool's name. */
  readonly name: string;
  /** The first sentence of its description. */
  readonly description: string;
}

/**
 * What `find_tool` returns to the model.
 *
 * @public
 */
export interface FindToolOutput {
  /** Tools activated by this call; callable from the next turn on. */
  readonly activated: readonly FoundTool[];
  /** Tools that were callable already. */
  readonly already_available: readonly FoundTool[];
  /** Matching tools this run reaches through `toolbox` (listed in the system prompt), not activated. */
  readonly via_toolbox: readonly FoundTool[];
  /** Names given with `select:` that do not exist here, with the closest names that do. */
  readonly not_found: readonly {
    readonly name: string;
    readonly suggestions: readonly string[];
    /** Set when the tool exists but this run keeps it from the model (see `ActivationOutcome.notFound`). */
    readonly reason?: "not_allowed" | "turned_off";
  }[];
  /** What to do next. */
  readonly message: string;
}

/** Builds the `find_tool` core meta-tool (the registry registers it itself). */
export function createFindTool(): ToolDefinition<OutputOf<typeof findToolInput>, FindToolOutput> {
  return markMetaTool(
    defineTool({
      name: FIND_TOOL_NAME,
      description:
        'Find and activate tools beyond the core set: keywords (one entry in "queries" per capability a task needs), ' +
        'or exact names as "select:a,b". Activated tools stay callable: call them directly next.',
      inputSchema: findToolInput,
      tier: "core",
      tags: ["meta", "search", "discovery"],
      annotations: { title: "Find tool", readOnlyHint: true },
      handler: async ({ query, queries, limit }, { catalog, signal }): Promise<FindToolOutput> => {
        const describe = (name: string): FoundTool => ({
          name,
          description: oneLineDescription(catalog.describe(name)?.description ?? catalog.describeListed(name)?.description ?? ""),
        });
        const all = [...(query === undefined ? [] : [query]), ...(queries ?? [])];
        if (all.length === 0) {
          throw new ToolError("invalid_input", 'Give "query" (or "queries", one per capability).', {
            hint: 'E.g. {"query": "search the git history"} or {"queries": ["read a csv file", "plot a chart"]}.',
            data: { field: "query" },
          });
        }
        const selects = all.filter((text) => text.toLowerCase().startsWith(SELECT_PREFIX));
        if (selects.length > 0) {
          if (selects.length !== all.length) {
            throw new ToolError("invalid_input", 'Do not mix "select:" with keyword queries in one call.', {
              hint: 'Call find_tool once with "select:a,b" and once with the keywords.',
              // A mix needs a second entry, so it is always in "queries".
              data: { field: "queries" },
            });
          }
          // The field that held the select: a model fixes the one it wrote.
          return select(selects, catalog, describe, query === undefined ? "queries" : "query");
        }
        // Hybrid when the registry has an embedder (the keyword search otherwise).
        const search = async (text: string) =>
          catalog.searchHybrid === undefined
            ? catalog.search(text, { limit: limit ?? DEFAULT_LIMIT })
            : catalog.searchHybrid(text, { limit: limit ?? DEFAULT_LIMIT, signal });
        const names = mergeHits((await Promise.all(all.map(search))).map(relevantHits));
        const listed = names.filter((name) => catalog.isListed(name));
        const outcome = catalog.activate(
          names.filter((name) => !catalog.isListed(name)),
          FIND_TOOL_NAME,
        );
        return report(outcome.activated.map(describe), outcome.alreadyAvailable.map(describe), [], listed.map(describe));
      },
    }),
  );
}

function select(
  queries: readonly string[],
  catalog: RunCatalog,
  describe: (name: string) => FoundTool,
  field: "query" | "queries",
): FindToolOutput {
  const names = [...new Set(queries.flatMap(selectedNames))];
  if (names.length === 0) {
    throw new ToolError("invalid_input", 'No tool name after "select:".', {
      hint: 'Write "select:<name>", e.g. "select:git_log_search".',
      data: { field },
    });
  }
  const listed = names.filter((name) => catalog.isListed(name));
  const outcome = catalog.activate(
    names.filter((name) => !catalog.isListed(name)),
    FIND_TOOL_NAME,
  );
  if (outcome.activated.length === 0 && outcome.alreadyAvailable.length === 0 && listed.length === 0) {
    const hints = outcome.notFound.map(({ name, suggestions, reason }) =>
      reason === "not_allowed"
        ? `"${name}": not allowed in this run.`
        : reason === "turned_off"
          ? `"${name}": turned off in this run.`
          : suggestions.length > 0
            ? `"${name}": did you mean ${suggestions.map((suggestion) => `"${suggestion}"`).join(", ")}?`
            : `"${name}": no similar tool.`,
    );
    throw new ToolError(
      "unknown_tool",
      `No tool named ${outcome.notFound.map((entry) => `"${entry.name}"`).join(", ")} can be activated. ${hints.join(" ")}`,
      {
        hint: "Use one of the suggested names, or search with keywords instead of select:.",
        data: { not_found: outcome.notFound },
      },
    );
  }
  return report(outcome.activated.map(describe), outcome.alreadyAvailable.map(describe), outcome.notFound, listed.map(describe));
}

/**
 * The names one `select:` query gives. Commas separate them, as the tool's description says, but
 * models also write `select:a b`, one name per line, `select:a select:b`, `a;b` or a name in quotes
 * or backticks: no tool name holds a space, quote, backtick or semicolon (`TOOL_NAME_PATTERN`),
 * so those separate names too, where the whole string was one unknown name before.
 */
function selectedNames(text: string): string[] {
  return text
    .slice(SELECT_PREFIX.length)
    .split(/[\s,;]+/)
    .map((token) => token.replace(/^select:/i, "").replace(/^["'`]+|["'`]+$/g, ""))
    .filter(Boolean);
}

/** The hits whose score clears {@link FIND_TOOL_RELATIVE_THRESHOLD} of the query's best. */
function relevantHits(hits: readonly SearchHit[]): string[] {
  const best = hits[0]?.score ?? 0;
  return hits.filter((hit) => hit.score > 0 && hit.score >= FIND_TOOL_RELATIVE_THRESHOLD * best).map((hit) => hit.name);
}

/** Round-robin over the queries' ranked names (each capability gets its best tools first), without repeats. */
function mergeHits(lists: readonly (readonly string[])[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const longest = Math.max(0, ...lists.map((list) => list.length));
  for (let rank = 0; rank < longest && out.length < MAX_RESULTS; rank++) {
    for (const list of lists) {
      const name = list[rank];
      if (name === undefined || seen.has(name)) continue;
      seen.add(name);
      out.push(name);
      if (out.length === MAX_RESULTS) break;
    }
  }
  return out;
}

function report(
  activated: readonly FoundTool[],
  alreadyAvailable: readonly FoundTool[],
  notFound: FindToolOutput["not_found"],
  viaToolbox: readonly FoundTool[],
): FindToolOutput {
  const parts: string[] = [];
  if (activated.length > 0)
    parts.push(
      `Activated ${countOf(activated.length, "tool")}; call ${activated.length === 1 ? "it" : "them"} directly by name.`,
    );
  else if (alreadyAvailable.length === 1) parts.push("This tool is already available; call it directly by name.");
  else if (alreadyAvailable.length > 1) parts.push("These tools are already available; call them directly by name.");
  if (viaToolbox.length > 0) {
    parts.push('Tools in via_toolbox are called through toolbox: {"action": "run", "tool": "<name>", "args": {...}}.');
  }
  const message =
    parts.length > 0 ? parts.join(" ") : 'No matching tool. Try other keywords, or "select:<name>" with an exact name.';
  return { activated, already_available: alreadyAvailable, via_toolbox: viaToolbox, not_found: notFound, message };
}
