// The `agent-tool-catalog/mcp` subpath: MCP servers as deferred tool groups. Node-only (stdio
// spawns processes); needs the optional peer `@modelcontextprotocol/sdk`.

export { MAX_MCP_RESULT_DEPTH } from "./check-result-depth.js";
export { type ConnectMcpServerOptions, connectMcpServer } from "./connect-mcp-server.js";
export {
  type ConnectMcpServersOptions,
  connectMcpServers,
  type McpGroupDefinition,
  registerMcpGroup,
} from "./connect-mcp-servers.js";
export {
  CONNECT_MCP_TOOL_NAME,
  type ConnectMcpInput,
  type ConnectMcpOutput,
  type ConnectMcpToolOptions,
  createConnectMcpTool,
  isAllowedMcpUrl,
  type McpConnectRequest,
} from "./connect-mcp-tool.js";
export { expandMcpVariables, type McpVariables } from "./expand-mcp-variables.js";
export { formatMcpResult, type McpResultSource, type McpToolResultContent } from "./format-mcp-result.js";
export { JsonFileMcpTrustStore } from "./json-file-mcp-trust-store.js";
export { MAX_TOOL_PAGES, MAX_TOOLS_PER_SERVER } from "./list-mcp-tools.js";
export {
  type McpClientHandlers,
  type McpClientRequestContext,
  type McpElicitationRequest,
  type McpRoot,
  type McpSamplingRequest,
  workspaceRoots,
} from "./mcp-client-handlers.js";
export type { McpConnectionState } from "./mcp-connection.js";
export {
  InMemoryMcpCredentialStore,
  JsonFileMcpCredentialStore,
  type McpCredentialStore,
  type McpCredentials,
} from "./mcp-credential-store.js";
export {
  type McpElicitationBrokerOptions,
  type McpQuestionChannel,
  mcpElicitationFromQuestionBroker,
} from "./mcp-elicitation-helpers.js";
export { McpConnectionError } from "./mcp-errors.js";
export type {
  McpEventBase,
  McpEvents,
  McpRefreshFailedEvent,
  McpRejectedTool,
  McpRejectionReason,
  McpServerConnectedEvent,
  McpServerDisconnectedEvent,
  McpToolRejectedEvent,
  McpToolsRefreshedEvent,
} from "./mcp-events.js";
export { completeMcpOAuth, type McpAuthState, type McpServerAuthStatus, mcpAuthStatus } from "./mcp-oauth.js";
export { createMcpPromptTools, type McpPromptToolsOptions } from "./mcp-prompt-tools.js";
export { createMcpResourceTools, type McpResourceToolsOptions } from "./mcp-resource-tools.js";
export { type McpContentSource, mcpResultContent } from "./mcp-result-content.js";
export {
  type AiSdkGenerateText,
  type AiSdkSamplingMessage,
  type McpAiSdkSamplingOptions,
  mcpSamplingFromAiSdk,
} from "./mcp-sampling-helpers.js";
export type {
  McpCustomServerConfig,
  McpHttpServerConfig,
  McpServerConfig,
  McpServerOptions,
  McpSseServerConfig,
  McpStdioServerConfig,
  McpTransportKind,
} from "./mcp-server-config.js";
export type {
  McpListResourcesOptions,
  McpPromptPage,
  McpResourcePage,
  McpServerHandle,
  McpServerStatus,
} from "./mcp-server-handle.js";
export { type McpServerFailure, McpServerGroup, McpServerSet } from "./mcp-server-set.js";
export { MCP_TOOL_TAGS } from "./mcp-tool-definition.js";
export { MCP_TOOL_NAME_PREFIX, mcpToolName } from "./mcp-tool-name.js";
export type { McpRegisteredTool, McpToolChanges } from "./mcp-tool-sync.js";
export { InMemoryMcpTrustStore, type McpTrustStore } from "./mcp-trust-store.js";
export { mcpJsonServerNames, type ParseMcpJsonOptions, parseMcpJson } from "./parse-mcp-json.js";
export { type LoadProjectMcpConfigOptions, loadProjectMcpConfig, type ProjectMcpConfig } from "./project-mcp-config.js";
export { createStoredMcpOAuthProvider, type StoredMcpOAuthProviderOptions } from "./stored-mcp-oauth-provider.js";
export type { McpTransportDriver, McpTransportInstance } from "./transports/mcp-transport.js";
export { sseTransportDriver } from "./transports/sse-transport.js";
export { stdioTransportDriver } from "./transports/stdio-transport.js";
export { streamableHttpTransportDriver } from "./transports/streamable-http-transport.js";
