import { ConfigurationError, type Registry } from "agent-tool-catalog";
import { type ConnectMcpServerOptions, connectMcpServer } from "./connect-mcp-server.js";
import { createMcpPromptTools } from "./mcp-prompt-tools.js";
import { createMcpResourceTools, type McpResourceToolsOptions } from "./mcp-resource-tools.js";
import type { McpServerConfig } from "./mcp-server-config.js";
import { McpServerSet } from "./mcp-server-set.js";
import { resolveMcpServerConfig } from "./resolve-mcp-server-config.js";

/**
 * Options of {@link connectMcpServers}.
 *
 * @public
 */
export interface ConnectMcpServersOptions extends Omit<ConnectMcpServerOptions, "events"> {
  /** Add the servers to this group. @defaultValue a new group */
  readonly group?: McpServerSet;
}

/**
 * Connects several servers at once (in parallel). One server that fails does not keep the others
 * out: it is listed in `group.failures` with its error, and the others are connected.
 *
 * @throws ConfigurationError when a config is invalid (before anything connects).
 * @public
 */
export async function connectMcpServers(
  registry: Registry,
  configs: readonly McpServerConfig[],
  options: ConnectMcpServersOptions = {},
): Promise<McpServerSet> {
  const { group = new McpServerSet(), ...connectOptions } = options;
  for (const config of configs) resolveMcpServerConfig(config);
  const names = new Set<string>();
  for (const config of configs) {
    if (names.has(config.name)) {
      // The second server's tools would collide with the first one's, every one of them.
      const error = new ConfigurationError("duplicate_mcp_server", `Two MCP server configs are named "${config.name}".`, {
        data: { name: config.name },
      });
      group.addFailure({ name: config.name, error });
    }
    names.add(config.name);
  }
  const unique = configs.filter((config, index) => configs.findIndex((other) => other.name === config.name) === index);
  const results = await Promise.allSettled(
    unique.map((config) => connectMcpServer(registry, config, { ...connectOptions, events: group.events })),
  );
  for (const [index, result] of results.entries()) {
    const name = unique[index]?.name ?? "";
    if (result.status === "rejected") {
      group.addFailure({ name, error: result.reason });
      continue;
    }
    try {
      group.add(result.value);
    } catch (error) {
      // The group already had a server of that name: this one would only shadow it.
      await result.value.close();
      group.addFailure({ name, error });
    }
  }
  return group;
}

/**
 * A set of MCP servers with an enabling condition, like a `ToolGroup` ("EnableMCP && MCPRegistry != nil").
 *
 * @public
 */
export interface McpGroupDefinition extends McpResourceToolsOptions {
  /**
   * Whether the group is connected at all; when false, nothing is connected and no tool is
   * registered, silently.
   * @defaultValue `true`
   */
  readonly enabled?: boolean | (() => boolean);
  /** The servers. */
  readonly servers: readonly McpServerConfig[];
  /**
   * Also register `list_mcp_resources` and `read_mcp_resource` (deferred) for the group's servers.
   * @defaultValue `true`
   */
  readonly resourceTools?: boolean;
  /**
   * Also register `list_mcp_prompts` and `get_mcp_prompt` (deferred) for the group's servers.
   * @defaultValue `true`
   */
  readonly promptTools?: boolean;
}

/**
 * Connects a group of servers and, unless turned off, the resource tools over them. Resolves to
 * `undefined` when the group is disabled. The resource tools are removed when the group closes.
 *
 * @throws ToolDefinitionError when the resource tools are registered already (one MCP group per
 *   registry has them; pass `resourceTools: false` to the others). Nothing is connected then.
 * @public
 */
export async function registerMcpGroup(
  registry: Registry,
  definition: McpGroupDefinition,
  options: ConnectMcpServersOptions = {},
): Promise<McpServerSet | undefined> {
  const enabled = typeof definition.enabled === "function" ? definition.enabled() : (definition.enabled ?? true);
  if (!enabled) return undefined;
  const group = options.group ?? new McpServerSet();
  const resourceTools = definition.resourceTools === false ? [] : createMcpResourceTools(group, definition);
  const promptTools = definition.promptTools === false ? [] : createMcpPromptTools(group, definition);
  // Registered before connecting: a clash (a second MCP group) fails before any server starts.
  const handles = registry.registerGroup({ name: "mcp", tools: [...resourceTools, ...promptTools] }) ?? [];
  group.addDisposer(() => {
    for (const handle of handles) handle.remove();
  });
  return connectMcpServers(registry, definition.servers, { ...options, group });
}
