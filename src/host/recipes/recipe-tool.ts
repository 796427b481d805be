import {
  type AnyToolDefinition,
  ConfigurationError,
  defineTool,
  formatToolResult,
  type ToolCallResult,
  type ToolGroup,
} from "agent-tool-catalog";
import { countOf } from "../../errors/count-of.js";
import { childCallId } from "../../tool/child-call-id.js";
import { contextRun, type RunResolver } from "../shared/host-run.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { WorkspaceAnchoredStores } from "../shared/workspace-anchored-stores.js";
import { callThroughRun } from "./call-through-run.js";
import { RecipeDirectory } from "./recipe.js";
import { resolveVariables, substitute } from "./recipe-variables.js";

/**
 * Options of {@link recipeToolGroup}.
 *
 * @public
 */
export interface RecipeToolOptions {
  /** The recipes directory; empty or absent: no `run_recipe`. */
  readonly recipesDir?: string;
  /**
   * Finds the calling run, so each step is a call through it.
   * @defaultValue the run of the call's context (`contextRun`)
   */
  readonly resolveRun?: RunResolver;
  /**
   * Characters of each step's output kept in the report (a whole number, at least 0, or `Infinity`:
   * no cap; else `ConfigurationError` `invalid_option` when the tool is made). @defaultValue 4000
   */
  readonly maxStepOutputChars?: number;
}

const schemas = lazySchemas((z) => {
  const runInput = z.object({
    name: z.string().min(1).max(64).describe("The recipe's name (its file name without .yaml)"),
    variables: z
      .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
      .optional()
      .describe("Values for the recipe's {{variables}}"),
    continue_on_error: z.boolean().optional().describe("Run the remaining steps after a failed one (default false: stop)"),
  });
  return { runInput };
});

function report(index: number, label: string, tool: string, result: ToolCallResult, maxChars: number): string {
  const title = `${index + 1}. ${label}${label === tool ? "" : ` (${tool})`}`;
  if (!result.ok)
    return `✗ ${title}: ${result.error.code}: ${result.error.message}${result.error.hint === undefined ? "" : ` (${result.error.hint})`}`;
  const text = formatToolResult(result);
  const cut = text.length > maxChars ? `${text.slice(0, maxChars)}\n[… ${text.length - maxChars} more characters]` : text;
  return `✓ ${title}\n${cut}`;
}

/**
 * `run_recipe`: runs a recipe's steps in order, each a tool call through the same run, so the
 * run's policy applies to every step. Variables are checked before the first step.
 * @public
 */
export function createRunRecipeTool(options: RecipeToolOptions & { readonly recipesDir: string }): AnyToolDefinition {
  const { recipesDir } = options;
  const maxStepOutputChars = options.maxStepOutputChars ?? 4000;
  // NaN kept every step's output whole (`length > NaN` is false); a negative count cut from the end.
  // Infinity always meant "no cap".
  const valid = Number.isSafeInteger(maxStepOutputChars) || maxStepOutputChars === Number.POSITIVE_INFINITY;
  if (!valid || maxStepOutputChars < 0) {
    throw new ConfigurationError(
      "invalid_option",
      `run_recipe: maxStepOutputChars must be a whole number at least 0 (or Infinity); got ${String(maxStepOutputChars)}.`,
      { data: { field: "maxStepOutputChars", value: String(maxStepOutputChars) } },
    );
  }
  const recipes = new WorkspaceAnchoredStores(recipesDir, (anchor) => new RecipeDirectory(recipesDir, anchor));
  return defineTool({
    name: "run_recipe",
    description:
      "Execute a multi-step recipe (a YAML file of tool calls with {{variable}} placeholders) from the recipes directory.",
    inputSchema: schemas().runInput,
    tier: "deferred",
    annotations: { title: "Run recipe" },
    tags: ["builtin", "recipe", "steps", "sequence", "yaml", "automation", "run"],
    handler: async (input, context) => {
      // Anchored at the run's workspace when the directory lies inside it: see WorkspaceAnchoredStores.
      const recipe = await recipes.for(context).load(input.name);
      const values = resolveVariables(recipe, input.variables ?? {});
      const lines: string[] = [];
      let failures = 0;
      let ran = 0;
      for (const [index, step] of recipe.steps.entries()) {
        context.signal.throwIfAborted();
        const result = await callThroughRun(
          context,
          options.resolveRun ?? contextRun,
          step.tool,
          substitute(step.args, values),
          childCallId(context.callId, `step-${index + 1}`),
        );
        ran++;
        lines.push(report(index, step.name, step.tool, result, maxStepOutputChars));
        if (!result.ok) {
          failures++;
          if (input.continue_on_error !== true) break;
        }
      }
      const skipped = recipe.steps.length - ran;
      const summary = `Recipe "${recipe.name}": ${ran - failures} of ${countOf(recipe.steps.length, "step")} succeeded${failures > 0 ? `, ${failures} failed` : ""}${skipped > 0 ? `, ${skipped} not run` : ""}.`;
      return [summary, ...lines].join("\n\n");
    },
  });
}

/**
 * `run_recipe` as a group, present when a `recipesDir` is configured.
 *
 * @public
 */
export function recipeToolGroup(options: RecipeToolOptions): ToolGroup {
  const { recipesDir } = options;
  return {
    name: "recipes",
    enabled: recipesDir !== undefined && recipesDir !== "",
    tools: () => (recipesDir === undefined || recipesDir === "" ? [] : [createRunRecipeTool({ ...options, recipesDir })]),
  };
}
