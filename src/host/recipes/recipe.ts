import { readdir } from "node:fs/promises";
import path from "node:path";
import { TOOL_NAME_PATTERN, ToolError } from "agent-tool-catalog";
import type * as Yaml from "yaml";
import { loadOnDemand } from "../../tool/load-on-demand.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import { PinnedHostDirectory } from "../shared/pinned-host-directory.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const yaml = loadOnDemand<typeof Yaml>("yaml");

/**
 * A variable's value: what `{{name}}` placeholders are replaced with.
 *
 * @public
 */
export type RecipeValue = string | number | boolean;

/**
 * One step: a tool call with arguments that may hold `{{variable}}` placeholders.
 *
 * @public
 */
export interface RecipeStep {
  /** A label for the step's report. @defaultValue the tool's name */
  readonly name: string;
  /** The tool to call. */
  readonly tool: string;
  /** Its arguments. */
  readonly args: Readonly<Record<string, unknown>>;
}

/**
 * A recipe: a named, declarative sequence of tool calls, stored as `<recipes dir>/<name>.yaml`.
 * ```yaml
 * description: Show the repository's state
 * variables:        # defaults; callers may override them
 *   path: "."
 * steps:
 *   - name: files
 *     tool: ls
 *     args: { path: "{{path}}" }
 *   - tool: git_diff_range
 *     args: { from: "{{base}}", to: HEAD }
 * ```
 * @public
 */
export interface Recipe {
  /** The file's name without extension. */
  readonly name: string;
  /** What it does. */
  readonly description: string;
  /** Default values of variables. */
  readonly variables: Readonly<Record<string, RecipeValue>>;
  /** The steps, in order. */
  readonly steps: readonly RecipeStep[];
}

/**
 * The most steps a recipe may have.
 *
 * @public
 */
export const MAX_RECIPE_STEPS = 50;
/** The tool that runs recipes: a step may not call it, so recipes cannot recurse. */
const RUN_RECIPE = "run_recipe";

function invalid(source: string, message: string): ToolError {
  return new ToolError("invalid_recipe", `${source}: ${message}`, {
    hint: "The host must fix the recipe file; pick another recipe meanwhile.",
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isValue = (value: unknown): value is RecipeValue =>
  typeof value === "string" || typeof value === "number" || typeof value === "boolean";

function parseStep(value: unknown, index: number, source: string): RecipeStep {
  const where = `steps[${index}]`;
  if (!isRecord(value)) throw invalid(source, `${where} must be a mapping with tool and args.`);
  for (const key of Object.keys(value))
    if (!["name", "tool", "args"].includes(key))
      throw invalid(source, `${where} has an unknown key "${key}" (known: name, tool, args).`);
  const { tool, args, name } = value;
  if (typeof tool !== "string" || !TOOL_NAME_PATTERN.test(tool)) throw invalid(source, `${where}.tool must be a tool name.`);
  if (tool === RUN_RECIPE) throw invalid(source, `${where} calls run_recipe; recipes cannot run recipes.`);
  if (args !== undefined && !isRecord(args)) throw invalid(source, `${where}.args must be a mapping.`);
  if (name !== undefined && typeof name !== "string") throw invalid(source, `${where}.name must be a string.`);
  return { name: name ?? tool, tool, args: args ?? {} };
}

/**
 * Parses a recipe file's YAML.
 * @throws ToolError `invalid_recipe` naming the file, and the line for YAML syntax errors.
 * @public
 */
export function parseRecipe(text: string, name: string, source = `${name}.yaml`): Recipe {
  let document: unknown;
  try {
    document = yaml().parse(text);
  } catch (error) {
    if (error instanceof yaml().YAMLParseError)
      throw invalid(source, `malformed YAML: ${error.message.split("\n")[0] ?? error.message}`);
    // The parser's other refusals (an alias bomb's "Excessive alias count") are about the file too.
    if (error instanceof Error) throw invalid(source, `the YAML cannot be read: ${error.message}`);
    throw error;
  }
  if (!isRecord(document)) throw invalid(source, "the file must be a YAML mapping with description and steps.");
  for (const key of Object.keys(document)) {
    if (!["name", "description", "variables", "steps"].includes(key))
      throw invalid(source, `unknown key "${key}" (known: name, description, variables, steps).`);
  }
  if (document.name !== undefined && document.name !== name)
    throw invalid(source, `name must be "${name}" (the file's name) or be left out.`);
  const variables = document.variables ?? {};
  if (!isRecord(variables) || !Object.values(variables).every(isValue))
    throw invalid(source, "variables must map names to strings, numbers or booleans.");
  const steps = document.steps;
  if (!Array.isArray(steps) || steps.length === 0) throw invalid(source, "steps must be a non-empty list.");
  if (steps.length > MAX_RECIPE_STEPS) throw invalid(source, `it has ${steps.length} steps; the limit is ${MAX_RECIPE_STEPS}.`);
  const description = typeof document.description === "string" ? document.description : "";
  return {
    name,
    description,
    variables: variables as Record<string, RecipeValue>,
    steps: steps.map((step, index) => parseStep(step, index, source)),
  };
}

/**
 * Recipes as `<name>.yaml` (or `.yml`) files in one directory, reached through directory handles
 * opened without following links from an anchor resolved once (as the profiles and skills
 * directories are): a recipes directory, or a folder above it up to the anchor, that is a link
 * is `symlink_refused`, never read through.
 *
 * @public
 */
export class RecipeDirectory {
  /** The directory. */
  readonly directory: string;
  private readonly pinned: PinnedHostDirectory;

  /**
   * @param directory - The recipes directory.
   * @param anchor - The folder the host trusts, at or above `directory`: resolved once (a link
   * the host set up is followed then); no folder from it down may be a link. `run_recipe` passes
   * the run's workspace when the directory lies inside it. @defaultValue `directory`
   */
  constructor(directory: string, anchor?: string) {
    this.directory = path.resolve(directory);
    this.pinned = new PinnedHostDirectory(this.directory, anchor);
  }

  /**
   * The names of the recipes.
   * @throws ToolError `symlink_refused` when the directory or a folder up to the anchor is a link
   * (or not a directory).
   */
  async names(): Promise<string[]> {
    const files = await this.inDirectory((at) => (at === undefined ? Promise.resolve([]) : readdir(at("."))));
    return files
      .map((file) => /^(.*)\.ya?ml$/.exec(file)?.[1])
      .filter((name): name is string => name !== undefined && ENTITY_NAME_PATTERN.test(name))
      .sort();
  }

  /**
   * Loads one recipe.
   * @throws ToolError `invalid_name`, `unknown_recipe` (with the names there are), `invalid_recipe`
   * or `symlink_refused`.
   */
  async load(name: string): Promise<Recipe> {
    checkEntityName("Recipe", name);
    for (const extension of [".yaml", ".yml"]) {
      const file = `${name}${extension}`;
      const text = await this.inDirectory((at) =>
        at === undefined
          ? Promise.resolve(undefined)
          : readHostTextFile(at(file)).catch((error: unknown) => {
              if (error instanceof UnreadableHostFileError) throw invalid(file, error.message);
              throw error;
            }),
      );
      if (text !== undefined) return parseRecipe(text, name, file);
    }
    const names = await this.names();
    throw new ToolError("unknown_recipe", `There is no recipe named ${JSON.stringify(name)}.`, {
      hint: names.length === 0 ? "No recipes exist." : `Recipes: ${names.join(", ")}.`,
    });
  }

  /** Runs `act` with entries of the verified directory (`at` is `undefined` when it is missing). */
  private async inDirectory<T>(act: (at: ((name: string) => string) | undefined) => Promise<T>): Promise<T> {
    const opened = await this.pinned.open([], false);
    if (opened === undefined) return act(undefined);
    try {
      return await act((name) => opened.at(name));
    } finally {
      await opened.close();
    }
  }
}
