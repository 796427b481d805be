import { ConfigurationError } from "agent-tool-catalog";
import { MAX_TIMER_DELAY_MS } from "../errors/check-number-option.js";
import {
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpSseServerConfig,
  type McpStdioServerConfig,
  type McpTransportKind,
  transportKindOf,
} from "./mcp-server-config.js";

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const DEFAULT_SCHEMA_TIMEOUT_MS = 5_000;
const DEFAULT_MAX_OUTPUT_BYTES = 100_000;
const DEFAULT_MAX_BINARY_BYTES = 5 * 1024 * 1024;

/** A checked config with its defaults filled in. */
export interface ResolvedMcpServerConfig {
  /** The config as given. */
  readonly config: McpServerConfig;
  /** The server's name. */
  readonly name: string;
  /** The transport it selects. */
  readonly kind: McpTransportKind;
  /** Whether annotations count. */
  readonly trusted: boolean;
  /** Per-call timeout, ms. */
  readonly timeoutMs: number;
  /** Connect timeout, ms. */
  readonly connectTimeoutMs: number;
  /** Time limit of compiling a tool's input schema, and of checking one call's arguments, ms. */
  readonly schemaTimeoutMs: number;
  /** Output limit, bytes. */
  readonly maxOutputBytes: number;
  /** Binary content limit per result, bytes (0: text only). */
  readonly maxBinaryBytes: number;
}

/**
 * Checks a config once, up front, so a typo fails where the host wrote it and not at the first
 * tool call.
 * @throws ConfigurationError (`invalid_mcp_config`) naming the field.
 */
export function resolveMcpServerConfig(config: McpServerConfig): ResolvedMcpServerConfig {
  const fail = (field: string, problem: string): never => {
    const where = typeof config?.name === "string" ? `MCP server "${config.name}"` : "MCP server config";
    throw new ConfigurationError("invalid_mcp_config", `${where}: ${field} ${problem}.`, { data: { field } });
  };
  if (typeof config !== "object" || config === null) return fail("config", "must be an object");
  if (typeof config.name !== "string" || config.name.trim() === "") fail("name", "must be a non-empty string");
  const kinds = [typeof config.command === "string", typeof config.url === "string", typeof config.transport === "function"];
  if (kinds.filter(Boolean).length !== 1) fail("command/url/transport", "must give exactly one way to reach the server");
  const kind = transportKindOf(config);
  if (kind === "stdio") checkStdio(config as McpStdioServerConfig, fail);
  if (kind === "http" || kind === "sse") checkUrl(config as McpHttpServerConfig | McpSseServerConfig, fail);
  return {
    config,
    name: config.name,
    kind,
    trusted: config.trusted === true,
    timeoutMs: timer(config.timeoutMs, DEFAULT_TIMEOUT_MS, "timeoutMs", fail),
    connectTimeoutMs: timer(config.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, "connectTimeoutMs", fail),
    schemaTimeoutMs: timer(config.schemaTimeoutMs, DEFAULT_SCHEMA_TIMEOUT_MS, "schemaTimeoutMs", fail),
    maxOutputBytes: wholeBytes(config.maxOutputBytes, DEFAULT_MAX_OUTPUT_BYTES, 1, "maxOutputBytes", fail),
    maxBinaryBytes: wholeBytes(config.maxBinaryBytes, DEFAULT_MAX_BINARY_BYTES, 0, "maxBinaryBytes", fail),
  };
}

type Fail = (field: string, problem: string) => never;

function checkStdio(config: McpStdioServerConfig, fail: Fail): void {
  if (config.command === "") fail("command", "must not be empty");
  if (config.args !== undefined && (!Array.isArray(config.args) || !config.args.every((arg) => typeof arg === "string"))) {
    fail("args", "must be an array of strings");
  }
  if (config.env !== undefined) {
    const values = typeof config.env === "object" && config.env !== null ? Object.values(config.env) : [0];
    if (!values.every((value) => typeof value === "string")) fail("env", "must map names to strings");
  }
  if (config.cwd !== undefined && typeof config.cwd !== "string") fail("cwd", "must be a string");
}

function checkUrl(config: McpHttpServerConfig | McpSseServerConfig, fail: Fail): void {
  let url: URL | undefined;
  try {
    url = new URL(String(config.url));
  } catch {
    fail("url", `is not a URL: ${JSON.stringify(config.url)}`);
  }
  if (url !== undefined && url.protocol !== "http:" && url.protocol !== "https:") fail("url", "must be http: or https:");
  const transport: unknown = config.transport;
  if (transport !== undefined && transport !== "http" && transport !== "sse") fail("transport", 'must be "http" or "sse"');
  if (config.headers !== undefined) {
    const values = typeof config.headers === "object" && config.headers !== null ? Object.values(config.headers) : [0];
    if (!values.every((value) => typeof value === "string")) fail("headers", "must map names to strings");
  }
}

function positive(value: number | undefined, fallback: number, field: string, fail: Fail): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) fail(field, "must be a positive number");
  return value;
}

/**
 * A timeout handed to a timer: positive and at most 2^31 - 1 ms. Node fires a longer timer after
 * 1 ms, so `timeoutMs: 2 ** 31` failed every call with `mcp_timeout` at once.
 */
function timer(value: number | undefined, fallback: number, field: string, fail: Fail): number {
  const ms = positive(value, fallback, field, fail);
  if (ms > MAX_TIMER_DELAY_MS)
    fail(field, `must be a positive number of ms, at most ${MAX_TIMER_DELAY_MS} (Node fires a longer timer at once)`);
  return ms;
}

/**
 * A byte count: a whole number at least `min`. A fraction is refused, not floored: `0.5` became 0,
 * which means something else (every binary block described in text, every output cut to nothing).
 */
function wholeBytes(value: number | undefined, fallback: number, min: number, field: string, fail: Fail): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    fail(field, `must be a whole number of bytes, ${min} or more`);
  }
  return value;
}
