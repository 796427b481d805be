import {
  CatalogError,
  ConfigurationError,
  defineTool,
  oneLineDescription,
  type Registry,
  type ToolContext,
  type ToolDefinition,
  ToolError,
} from "agent-tool-catalog";
import { z } from "zod";
import { checkNumberOption, MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";
import { countOf } from "../errors/count-of.js";
import { connectMcpServer } from "./connect-mcp-server.js";
import { clip } from "./mcp-errors.js";
import type { McpServerConfig } from "./mcp-server-config.js";
import type { McpServerHandle } from "./mcp-server-handle.js";
import { McpServerSet } from "./mcp-server-set.js";

/**
 * The name of the tool that lets the model connect an MCP server.
 *
 * @public
 */
export const CONNECT_MCP_TOOL_NAME = "connect_mcp";

/**
 * What the model asked to connect, for the host's approval callback.
 *
 * @public
 */
export interface McpConnectRequest {
  /** The run that asks. */
  readonly runId: string;
  /** The server name the model chose. */
  readonly name: string;
  /** The parsed URL. */
  readonly url: URL;
  /** The transport asked for. */
  readonly transport: "http" | "sse";
}

/**
 * Options of {@link createConnectMcpTool}. At least one of `allowedUrls` and `approve` is required.
 *
 * @public
 */
export interface ConnectMcpToolOptions {
  /**
   * URLs the model may connect without asking: a string allows its origin and every path under
   * it (`"https://mcp.example.com/v1"` allows `/v1/...` on that exact origin); a RegExp is tested
   * against the whole URL.
   */
  readonly allowedUrls?: readonly (string | RegExp)[];
  /** Asked for every URL `allowedUrls` does not allow; `true` connects. */
  readonly approve?: (request: McpConnectRequest) => boolean | Promise<boolean>;
  /** Headers for a URL (e.g. a token the host holds); the model never sees or sets them. */
  readonly headers?: (url: URL) => Readonly<Record<string, string>> | undefined;
  /** Where connected servers are kept (the resource tools see them there). @defaultValue a new group */
  readonly group?: McpServerSet;
  /** Most servers one run may connect: a whole number at least 1, or `Infinity`. @defaultValue 5 */
  readonly maxServersPerRun?: number;
  /** Per-call timeout of connected servers, ms: above 0 and at most 2^31 - 1. @defaultValue 60000 */
  readonly timeoutMs?: number;
  /**
   * Output limit of connected servers' tools, bytes: a whole number at least 1, as in a server's
   * config and on the resource and prompt tools (0.5 was accepted and floored to 0).
   * @defaultValue 100000
   */
  readonly maxOutputBytes?: number;
  /** Connect timeout, ms: above 0 and at most 2^31 - 1. @defaultValue 30000 */
  readonly connectTimeoutMs?: number;
}

/**
 * What `connect_mcp` returns to the model.
 *
 * @public
 */
export interface ConnectMcpOutput {
  /** The server's name. */
  readonly server: string;
  /** Its tools (deferred), at most 50. */
  readonly tools: readonly { readonly name: string; readonly description: string }[];
  /** How many more tools there are than listed, and how many were rejected. */
  readonly more: number;
  /** What to do next. */
  readonly message: string;
}

/**
 * What the model sends to `connect_mcp`.
 *
 * @public
 */
export interface ConnectMcpInput {
  /** The server's name, `[A-Za-z0-9_-]{1,32}`. */
  readonly name: string;
  /** Its URL. */
  readonly url: string;
  /** The transport. @defaultValue `"http"` */
  readonly transport?: "http" | "sse" | undefined;
}

const input = z.object({
  name: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/)
    .describe("A short name for the server (letters, digits, _ and -); its tools are named mcp_<name>_<tool>."),
  url: z.string().min(1).max(2000).describe("The server's URL (http or https)."),
  transport: z.enum(["http", "sse"]).optional().describe('"http" (streamable HTTP, default) or "sse" (legacy servers).'),
});

const LISTED_TOOLS = 50;

/**
 * Checks the options of connected servers when the tool is made: they were checked only when the
 * model's first `connect_mcp` built a server config, so a bad one failed in front of the model,
 * and `maxServersPerRun: NaN` let a run connect any number.
 */
function checkConnectOptions(options: ConnectMcpToolOptions): void {
  const where = "createConnectMcpTool";
  const timer = { min: 0, aboveMin: true, max: MAX_TIMER_DELAY_MS };
  checkNumberOption(
    options.maxServersPerRun,
    "maxServersPerRun",
    { min: 1, integer: true, infinite: true },
    where,
    "invalid_mcp_config",
  );
  checkNumberOption(options.timeoutMs, "timeoutMs", timer, where, "invalid_mcp_config");
  checkNumberOption(options.connectTimeoutMs, "connectTimeoutMs", timer, where, "invalid_mcp_config");
  checkNumberOption(options.maxOutputBytes, "maxOutputBytes", { min: 1, integer: true }, where, "invalid_mcp_config");
}

/**
 * `connect_mcp`: the model connects an HTTP or SSE MCP server mid-run. The server is private to
 * the calling run (its tools are registered with the run's id, deferred, never trusted) and is
 * closed when the run closes. It is deferred (find_tool finds it, e.g. "connect mcp server"), and `mutating`, so `approval: "destructive"` asks before it runs.
 *
 * @throws ConfigurationError when neither `allowedUrls` nor `approve` is given: a tool that
 *   connects anywhere would let the model reach any host the machine can.
 * @public
 */
export function createConnectMcpTool(
  registry: Registry,
  options: ConnectMcpToolOptions,
): ToolDefinition<ConnectMcpInput, ConnectMcpOutput> {
  if ((options.allowedUrls ?? []).length === 0 && options.approve === undefined) {
    throw new ConfigurationError("invalid_mcp_config", "createConnectMcpTool needs allowedUrls or approve.", {
      data: { field: "allowedUrls" },
    });
  }
  checkConnectOptions(options);
  const group = options.group ?? new McpServerSet();
  // Names whose connect is under way, per run: a model's parallel calls of one step overlap at
  // the approval and the handshake, so the limit and the name check count these too (before,
  // eight parallel calls all saw no server and connected eight).
  const connecting = new Map<string, Set<string>>();
  return defineTool({
    name: CONNECT_MCP_TOOL_NAME,
    description:
      "Connect an MCP server by URL for the rest of this conversation. Its tools are registered as mcp_<name>_<tool>; " +
      "activate the ones you need with find_tool select:<name>.",
    // Deferred, as the spec lists it with the MCP tools: find_tool finds it by these tags and words.
    tier: "deferred",
    mutating: true,
    tags: ["mcp", "integration", "external", "connect", "server", "remote"],
    annotations: { title: "Connect MCP server", openWorldHint: true },
    inputSchema: input,
    handler: async (request, context) => {
      const connectRequest: McpConnectRequest = {
        runId: context.runId,
        name: request.name,
        url: parseUrl(request.url),
        transport: request.transport ?? "http",
      };
      const pending = connecting.get(context.runId) ?? new Set<string>();
      checkCapacity(group, request.name, context.runId, options.maxServersPerRun ?? 5, pending);
      pending.add(request.name);
      connecting.set(context.runId, pending);
      try {
        await authorize(options, connectRequest);
        const handle = await connect({ registry, group, options }, connectRequest, context);
        return report(handle, context);
      } finally {
        pending.delete(request.name);
        if (pending.size === 0) connecting.delete(context.runId);
      }
    },
  });
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ToolError("invalid_input", `${JSON.stringify(clip(text, 200))} is not a URL.`, {
      hint: "Give a full http(s) URL.",
      data: { field: "url" },
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ToolError("invalid_input", `Only http and https MCP servers can be connected, not ${url.protocol}.`, {
      data: { field: "url" },
    });
  }
  if (url.username !== "" || url.password !== "") {
    throw new ToolError("invalid_input", "The URL must not contain credentials.", {
      hint: "Ask the user to configure the server.",
      data: { field: "url" },
    });
  }
  return url;
}

function checkCapacity(group: McpServerSet, name: string, runId: string, limit: number, connecting: ReadonlySet<string>): void {
  const own = group.list(runId).filter((handle) => handle.runId === runId);
  if (group.get(name, runId)?.name === name || connecting.has(name)) {
    throw new ToolError("mcp_server_exists", `An MCP server named "${name}" is already connected.`, {
      hint: "Use its tools, or pick another name.",
    });
  }
  if (own.length + connecting.size >= limit) {
    throw new ToolError(
      "mcp_server_limit",
      `This conversation has connected ${own.length} MCP servers${connecting.size > 0 ? ` and is connecting ${connecting.size}` : ""}, the most allowed.`,
    );
  }
}

/**
 * Whether `url` is allowed by an entry of `allowedUrls`.
 *
 * @public
 */
export function isAllowedMcpUrl(url: URL, allowedUrls: readonly (string | RegExp)[]): boolean {
  return allowedUrls.some((entry) => {
    if (entry instanceof RegExp) return entry.test(url.href);
    let allowed: URL;
    try {
      allowed = new URL(entry);
    } catch {
      return false;
    }
    if (allowed.origin !== url.origin) return false;
    const base = allowed.pathname.endsWith("/") ? allowed.pathname : `${allowed.pathname}/`;
    return url.pathname === allowed.pathname || url.pathname.startsWith(base);
  });
}

async function authorize(options: ConnectMcpToolOptions, request: McpConnectRequest): Promise<void> {
  if (isAllowedMcpUrl(request.url, options.allowedUrls ?? [])) return;
  if (options.approve !== undefined && (await options.approve(request)) === true) return;
  throw new ToolError("mcp_url_not_allowed", `Connecting to ${request.url.origin} is not allowed here.`, {
    hint: "Ask the user to allow this server, or continue without it.",
  });
}

interface ConnectTarget {
  readonly registry: Registry;
  readonly group: McpServerSet;
  readonly options: ConnectMcpToolOptions;
}

async function connect(target: ConnectTarget, request: McpConnectRequest, context: ToolContext): Promise<McpServerHandle> {
  const { registry, group, options } = target;
  const { name, url, transport } = request;
  const headers = options.headers?.(url);
  const config: McpServerConfig = {
    name,
    url: url.href,
    ...(transport === "sse" ? { transport: "sse" as const } : {}),
    ...(headers === undefined ? {} : { headers }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes }),
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
  };
  let handle: McpServerHandle;
  try {
    handle = await connectMcpServer(registry, config, { runId: context.runId, events: group.events });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (CatalogError.isInstance(error) && error.code === "duplicate_mcp_server") {
      throw new ToolError("mcp_server_exists", `An MCP server named "${name}" is already connected.`, {
        hint: "Use its tools, or pick another name.",
        cause: error,
      });
    }
    throw new ToolError("mcp_connect_failed", clip(message, 1000), {
      hint: "Check the URL, or continue without the server.",
      cause: error,
    });
  }
  if (context.signal.aborted) {
    await handle.close();
    throw context.signal.reason;
  }
  try {
    group.add(handle);
  } catch {
    // Another call of this run connected the same name meanwhile.
    await handle.close();
    throw new ToolError("mcp_server_exists", `An MCP server named "${name}" is already connected.`);
  }
  // The server lives as long as the run that connected it.
  context.addRunDisposer(() => handle.close());
  return handle;
}

function report(handle: McpServerHandle, context: ToolContext): ConnectMcpOutput {
  const tools = handle.tools();
  const rejected = handle.status.rejected.length;
  const listed = tools.slice(0, LISTED_TOOLS).map((tool) => ({
    name: tool.name,
    description: oneLineDescription(context.catalog.describe(tool.name)?.description ?? tool.title ?? tool.mcpName),
  }));
  const select = listed
    .slice(0, 3)
    .map((tool) => tool.name)
    .join(",");
  const taken = handle.status.rejected.some((tool) => tool.reason === "name_taken");
  const message =
    tools.length === 0
      ? taken
        ? `Connected "${handle.name}", but its tool names are taken by tools already here; connect it under another name.`
        : `Connected "${handle.name}", but it offers no usable tools.`
      : `Connected "${handle.name}" with ${countOf(tools.length, "tool")}. Activate what you need with find_tool, e.g. {"query":"select:${select}"}.`;
  return { server: handle.name, tools: listed, more: tools.length - listed.length + rejected, message };
}
