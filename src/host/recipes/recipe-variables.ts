import { ToolError } from "agent-tool-catalog";
import type { Recipe, RecipeValue } from "./recipe.js";

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;
const WHOLE_PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}$/;

function visitStrings(value: unknown, visit: (text: string) => void): void {
  if (typeof value === "string") visit(value);
  else if (Array.isArray(value)) for (const item of value) visitStrings(item, visit);
  else if (typeof value === "object" && value !== null) for (const item of Object.values(value)) visitStrings(item, visit);
}

/** The variable names a recipe's steps use, in first-use order. */
export function placeholdersOf(recipe: Recipe): string[] {
  const names = new Set<string>();
  for (const step of recipe.steps) {
    visitStrings(step.args, (text) => {
      for (const match of text.matchAll(PLACEHOLDER)) if (match[1] !== undefined) names.add(match[1]);
    });
  }
  return [...names];
}

/**
 * The values for a run: the recipe's defaults overridden by the caller's. Checked before any step
 * runs, so a recipe never half-runs for want of a variable.
 * @throws ToolError `unknown_variables` naming placeholders with no value, or `unexpected_variables`
 *   naming given variables the recipe neither declares nor uses.
 */
export function resolveVariables(recipe: Recipe, given: Readonly<Record<string, RecipeValue>>): Record<string, RecipeValue> {
  const used = placeholdersOf(recipe);
  const values: Record<string, RecipeValue> = { ...recipe.variables, ...given };
  const missing = used.filter((name) => !Object.hasOwn(values, name));
  if (missing.length > 0) {
    throw new ToolError("unknown_variables", `Recipe "${recipe.name}" uses variables with no value: ${missing.join(", ")}.`, {
      hint: `Pass them in variables, e.g. {"${missing[0]}": "..."}.`,
      data: { variables: missing },
    });
  }
  const known = new Set([...used, ...Object.keys(recipe.variables)]);
  const unexpected = Object.keys(given).filter((name) => !known.has(name));
  if (unexpected.length > 0) {
    throw new ToolError("unexpected_variables", `Recipe "${recipe.name}" has no variables named ${unexpected.join(", ")}.`, {
      hint: known.size === 0 ? "It takes no variables." : `Its variables: ${[...known].join(", ")}.`,
      data: { variables: unexpected },
    });
  }
  return values;
}

/** Arguments with placeholders replaced: a string that is one placeholder takes the value's type. */
export function substitute(value: unknown, values: Readonly<Record<string, RecipeValue>>): unknown {
  if (typeof value === "string") {
    const whole = WHOLE_PLACEHOLDER.exec(value)?.[1];
    if (whole !== undefined && Object.hasOwn(values, whole)) return values[whole];
    return value.replace(PLACEHOLDER, (text, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : text));
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, values));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, values)]));
  }
  return value;
}
