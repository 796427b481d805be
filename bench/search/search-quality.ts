import { type AnyToolDefinition, createRegistry, defineTool, type Registry } from "../../src/index.js";
import { Bm25Baseline } from "./bm25-baseline.js";
import type { LabelledQuery, MetaTool, MetaToolData } from "./metatool-data.js";
import { meanMetrics, type QueryMetrics, queryMetrics } from "./metrics.js";

/** Quality of one search method on the single- and multi-tool query sets. */
export interface SearchQualityResult {
  readonly method: string;
  readonly single: QueryMetrics;
  readonly multi: QueryMetrics;
}

/** A MetaTool entry as a deferred catalog tool; the human name becomes the title annotation. */
export function metaToolDefinition(tool: MetaTool): AnyToolDefinition {
  return defineTool({
    name: tool.id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64),
    description: `${tool.description}\n\n${tool.descriptionForModel}`,
    tier: "deferred",
    annotations: { title: tool.nameForHuman },
    inputSchema: { type: "object" },
    handler: () => "",
  });
}

/** The plain text a baseline indexes: all the words the catalog sees, in one field. */
function fullText(tool: MetaTool): string {
  return [tool.id, tool.nameForHuman, tool.description, tool.descriptionForModel].join(" ");
}

/** The floor named by the data set's README: name and short description only. */
function nameAndDescription(tool: MetaTool): string {
  return `${tool.id} ${tool.description}`;
}

function evaluate(queries: readonly LabelledQuery[], rank: (query: string) => string[]): QueryMetrics {
  return meanMetrics(queries.map((query) => queryMetrics(rank(query.query), query.gold)));
}

/** A registry holding the MetaTool tools as deferred tools. */
export function metatoolRegistry(data: MetaToolData): Registry {
  return createRegistry({ tools: data.tools.map(metaToolDefinition) });
}

/** Runs both the catalog's search and the BM25 baseline over the data set. */
export function measureSearchQuality(data: MetaToolData): SearchQualityResult[] {
  const idByName = new Map(data.tools.map((tool) => [metaToolDefinition(tool).name, tool.id]));
  const registry = metatoolRegistry(data);
  const catalog = (query: string) =>
    registry
      .search(query, { limit: 10 })
      .filter((hit) => hit.name !== "find_tool")
      .map((hit) => idByName.get(hit.name) ?? hit.name);
  const short = new Bm25Baseline(data.tools.map((tool) => ({ name: tool.id, text: nameAndDescription(tool) })));
  const full = new Bm25Baseline(data.tools.map((tool) => ({ name: tool.id, text: fullText(tool) })));
  const plainShort = (query: string) => short.search(query, 10);
  const plainFull = (query: string) => full.search(query, 10);
  return [
    { method: "BM25, name + description", single: evaluate(data.single, plainShort), multi: evaluate(data.multi, plainShort) },
    { method: "BM25, all text in one field", single: evaluate(data.single, plainFull), multi: evaluate(data.multi, plainFull) },
    { method: "agent-tool-catalog find_tool", single: evaluate(data.single, catalog), multi: evaluate(data.multi, catalog) },
  ];
}
