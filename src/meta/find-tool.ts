import { z } from "zod";
import { ToolError } from "../errors/tool-error.js";
import { defineTool } from "../tool/define-tool.js";
import type { ToolDefinition } from "../tool/tool-definition.js";
import { markMetaTool } from "./meta-tools.js";
import { oneLineDescription } from "./one-line-description.js";

/** The name of the meta-tool that finds and activates deferred tools. */
export const FIND_TOOL_NAME = "find_tool";

const SELECT_PREFIX = "select:";
const DEFAULT_LIMIT = 5;

const findToolInput = z.object({
  query: z.string().trim().min(1).max(2000).describe('Keywords for the capability you need, or "select:<name>"'),
  limit: z.number().int().min(1).max(20).optional().describe(`Most tools to activate (default ${DEFAULT_LIMIT})`),
});

/** One tool that `find_tool` reports. */
export interface FoundTool {
  /** The tool's name. */
  readonly name: string;
  /** The first sentence of its description. */
  readonly description: string;
}

/** What `find_tool` returns to the model. */
export interface FindToolOutput {
  /** Tools activated by this call; callable from the next turn on. */
  readonly activated: readonly FoundTool[];
  /** Tools that were callable already. */
  readonly already_available: readonly FoundTool[];
  /** Names given with `select:` that do not exist here, with the closest names that do. */
  readonly not_found: readonly { readonly name: string; readonly suggestions: readonly string[] }[];
  /** What to do next. */
  readonly message: string;
}

/** Builds the `find_tool` core meta-tool (the registry registers it itself). */
export function createFindTool(): ToolDefinition<z.output<typeof findToolInput>, FindToolOutput> {
  return markMetaTool(
    defineTool({
      name: FIND_TOOL_NAME,
      description:
        "Find and activate more tools (only core tools are loaded at first). Search by keywords, or activate exact names with " +
        '"select:<name>" (also "select:a,b"). Activated tools stay available: call them directly next.',
      inputSchema: findToolInput,
      tier: "core",
      tags: ["meta", "search", "discovery"],
      annotations: { title: "Find tool", readOnlyHint: true },
      handler: ({ query, limit }, { catalog }): FindToolOutput => {
        const describe = (name: string): FoundTool => ({
          name,
          description: oneLineDescription(catalog.describe(name)?.description ?? ""),
        });
        if (query.toLowerCase().startsWith(SELECT_PREFIX)) {
          const names = [
            ...new Set(
              query
                .slice(SELECT_PREFIX.length)
                .split(",")
                .map((name) => name.trim())
                .filter(Boolean),
            ),
          ];
          if (names.length === 0) {
            throw new ToolError("invalid_input", 'No tool name after "select:".', {
              hint: 'Write "select:<name>", e.g. "select:git_log_search".',
            });
          }
          const outcome = catalog.activate(names, FIND_TOOL_NAME);
          if (outcome.activated.length === 0 && outcome.alreadyAvailable.length === 0) {
            const hints = outcome.notFound.map(({ name, suggestions }) =>
              suggestions.length > 0
                ? `"${name}": did you mean ${suggestions.map((s) => `"${s}"`).join(", ")}?`
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
          return report(outcome.activated.map(describe), outcome.alreadyAvailable.map(describe), outcome.notFound);
        }
        const hits = catalog.search(query, { limit: limit ?? DEFAULT_LIMIT });
        const outcome = catalog.activate(
          hits.map((hit) => hit.name),
          FIND_TOOL_NAME,
        );
        return report(outcome.activated.map(describe), outcome.alreadyAvailable.map(describe), []);
      },
    }),
  );
}

function report(
  activated: readonly FoundTool[],
  alreadyAvailable: readonly FoundTool[],
  notFound: FindToolOutput["not_found"],
): FindToolOutput {
  let message: string;
  if (activated.length > 0) message = `Activated ${activated.length} tool(s); call them directly by name.`;
  else if (alreadyAvailable.length > 0) message = "These tools are already available; call them directly by name.";
  else message = 'No matching tool. Try other keywords, or "select:<name>" with an exact name.';
  return { activated, already_available: alreadyAvailable, not_found: notFound, message };
}
