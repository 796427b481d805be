import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** One tool of the MetaTool set. */
export interface MetaTool {
  readonly id: string;
  readonly nameForHuman: string;
  readonly description: string;
  readonly descriptionForModel: string;
}

/** One labelled query. */
export interface LabelledQuery {
  readonly id: string;
  readonly query: string;
  readonly gold: readonly string[];
  /** What the query tests (the robustness set's `kind`: `typo`, `abbrev`, ...), where the set says. */
  readonly kind?: string;
  /**
   * `"any"`: the gold tools are alternatives, any one answers the query (the robustness set);
   * otherwise all of them are needed.
   */
  readonly goldMode?: "all" | "any";
}

/** The MetaTool development set. */
export interface MetaToolData {
  readonly tools: readonly MetaTool[];
  readonly single: readonly LabelledQuery[];
  readonly multi: readonly LabelledQuery[];
}

/** Where the data lives: the copy vendored in `bench/data/metatool` (MIT, see its LICENSE). */
export function metatoolDirectory(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "../data/metatool");
}

function readJsonLines(path: string): Record<string, unknown>[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

function toQuery(row: Record<string, unknown>): LabelledQuery {
  return { id: String(row.id), query: String(row.query), gold: (row.gold_tool_ids as string[]).map(String) };
}

/** Loads the set; throws with the path when it is missing. */
export function loadMetatool(directory = metatoolDirectory()): MetaToolData {
  if (!existsSync(join(directory, "tools.jsonl"))) {
    throw new Error(`MetaTool data not found in ${directory}.`);
  }
  const tools = readJsonLines(join(directory, "tools.jsonl")).map((row) => ({
    id: String(row.id),
    nameForHuman: String(row.name_for_human ?? ""),
    description: String(row.description ?? ""),
    descriptionForModel: String(row.description_for_model ?? ""),
  }));
  return {
    tools,
    single: readJsonLines(join(directory, "queries_sample_5per_tool.jsonl")).map(toQuery),
    multi: readJsonLines(join(directory, "queries_multi.jsonl")).map(toQuery),
  };
}
