import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { type AnyToolDefinition, createRegistry, type LoadMode, type Run, type ToolDescriptor } from "../../src/index.js";
import { createFileTools } from "../../src/tools/index.js";
import type { MetaToolData } from "../search/metatool-data.js";
import { recallAt } from "../search/metrics.js";
import { metaToolDefinition } from "../search/search-quality.js";
import { syntheticCatalog } from "../search/synthetic-catalog.js";
import { round } from "../stats.js";

/** First-request tokens of one catalog size in each mode. */
export interface TokenFootprintResult {
  readonly tools: number;
  /** Every tool sent with its schema. */
  readonly eagerTokens: number;
  /** The default (core profile) run: essential tools, find_tool, toolbox and its index of the other built-ins; deferred tools hidden. */
  readonly deferredTokens: number;
  /** Essential tools plus toolbox, and a one-row-per-tool index in the system prompt. */
  readonly listingTokens: number;
  /** 1 - deferred / eager. */
  readonly deferredCut: number;
  /** 1 - listing / eager. */
  readonly listingCut: number;
  /** Recall@5 of find_tool on the single-tool MetaTool queries within this catalog. */
  readonly findToolRecallAt5: number;
}

/** The tokens of tool definitions as a provider receives them (Anthropic shape, JSON). */
export function definitionTokens(tools: readonly ToolDescriptor[]): number {
  return countTokens(
    JSON.stringify(tools.map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.inputSchema }))),
  );
}

/** A catalog of `size` tools: the built-in file tools, MetaTool tools, then synthetic MCP-like tools. */
export function mixedCatalog(data: MetaToolData, size: number): AnyToolDefinition[] {
  const builtins = createFileTools();
  const metatool = data.tools.map(metaToolDefinition).slice(0, Math.max(0, size - builtins.length));
  const fill = syntheticCatalog(data, Math.max(0, size - builtins.length - metatool.length), 11);
  return [...builtins, ...metatool, ...fill];
}

function firstRequestTokens(run: Run): number {
  const index = run.systemPromptIndex();
  return definitionTokens(run.definitions()) + (index === undefined ? 0 : countTokens(index));
}

/** Measures eager, deferred and listing footprints, and find_tool recall, at each size. */
export function measureTokenFootprint(data: MetaToolData, sizes: readonly number[]): TokenFootprintResult[] {
  return sizes.map((size) => {
    const tools = mixedCatalog(data, size);
    const registry = createRegistry({ tools });
    const everyTool = registry.list().filter((tool) => tool.name !== "toolbox" && tool.name !== "find_tool");
    const eagerTokens = definitionTokens(everyTool);
    const deferredTokens = firstRequestTokens(registry.createRun({ environment: {} }));
    const listed: Record<string, LoadMode> = {};
    for (const tool of everyTool) if (!["read", "write", "ls", "grep"].includes(tool.name)) listed[tool.name] = "discoverable";
    const listingTokens = firstRequestTokens(registry.createRun({ profile: "core", loadModes: listed, environment: {} }));
    const inCatalog = new Set(registry.list().map((tool) => tool.name));
    const queries = data.single.filter((query) =>
      query.gold.every((id) =>
        inCatalog.has(metaToolDefinition({ id, nameForHuman: "", description: "x", descriptionForModel: "" }).name),
      ),
    );
    const recall =
      queries.reduce((sum, query) => {
        const hits = registry
          .createRun({ profile: "full" })
          .search(query.query, { limit: 5 })
          .map((hit) => hit.name);
        return (
          sum +
          recallAt(
            hits,
            query.gold.map((id) => id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64)),
            5,
          )
        );
      }, 0) / Math.max(1, queries.length);
    return {
      tools: tools.length,
      eagerTokens,
      deferredTokens,
      listingTokens,
      deferredCut: round(1 - deferredTokens / eagerTokens, 4),
      listingCut: round(1 - listingTokens / eagerTokens, 4),
      findToolRecallAt5: round(recall, 3),
    };
  });
}
