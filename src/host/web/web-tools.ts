import type { AnyToolDefinition, ToolGroup } from "agent-tool-catalog";
import { type AgentDepthOptions, checkAgentDepthOptions } from "../agents/agent-depth.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { createAgenticFetchTool } from "./agentic-fetch-tool.js";
import { createWebFetchTool } from "./web-fetch-tool.js";
import type { WebFetcher } from "./web-fetcher.js";
import { createWebSearchTool } from "./web-search-tool.js";
import type { WebSearcher } from "./web-searcher.js";

/**
 * Options of {@link webToolGroup}.
 *
 * @public
 */
export interface WebToolOptions extends AgentDepthOptions {
  /**
   * The host's `EnableAgent` switch (the spec gates web ops on it too).
   * @defaultValue true
   */
  readonly enableAgent?: boolean;
  /**
   * The host's `EnableWebOps` switch.
   * @defaultValue true
   */
  readonly enableWebOps?: boolean;
  /** Fetches pages; without one the group is absent. `new HttpWebFetcher()` is the default implementation. */
  readonly fetcher?: WebFetcher;
  /** A search engine; without one there is no `web_search` (no search engine works offline). */
  readonly searcher?: WebSearcher;
  /** Runs the sub-agent of `agentic_fetch`; without one there is no `agentic_fetch`. */
  readonly agentRunner?: AgentRunner;
}

/**
 * The web tools, present when `enableAgent && enableWebOps && fetcher` (the spec's condition):
 * `web_fetch` always, `web_search` with a `searcher`, `agentic_fetch` with an `agentRunner`.
 * @public
 */
export function webToolGroup(options: WebToolOptions): ToolGroup {
  checkAgentDepthOptions(options, "webToolGroup");
  const { fetcher } = options;
  return {
    name: "web",
    enabled: (options.enableAgent ?? true) && (options.enableWebOps ?? true) && fetcher !== undefined,
    tools: () => {
      if (fetcher === undefined) return [];
      const tools: AnyToolDefinition[] = [createWebFetchTool(fetcher)];
      if (options.searcher !== undefined) tools.unshift(createWebSearchTool(options.searcher));
      if (options.agentRunner !== undefined) tools.push(createAgenticFetchTool(fetcher, options.agentRunner, options));
      return tools;
    },
  };
}
