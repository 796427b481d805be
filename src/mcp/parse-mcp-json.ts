import { isAbsolute, resolve } from "node:path";
import { ConfigurationError } from "agent-tool-catalog";
import { expandMcpVariables, type McpVariables } from "./expand-mcp-variables.js";
import type { McpServerConfig } from "./mcp-server-config.js";

/**
 * Options of {@link parseMcpJson}.
 *
 * @public
 */
export interface ParseMcpJsonOptions {
  /** Where relative `cwd` values are resolved, and the `cwd` of stdio servers that give none. */
  readonly baseDirectory: string;
  /** The file's path, for error messages. */
  readonly source: string;
  /**
   * The variables `${VAR}` and `${VAR:-default}` expand from, in `command`, `args`, `env`, `cwd`,
   * `url` and `headers`. Only what the host passes here: never the whole process environment.
   * Without it, references are kept as written.
   */
  readonly env?: McpVariables;
}

type Entry = Readonly<Record<string, unknown>>;

/**
 * Reads the common `.mcp.json` shape: an object `mcpServers` of servers by name, each either
 * `command` / `args` / `env` / `cwd` (stdio) or `url` / `headers` / `type` (`"http"` or `"sse"`).
 * Every server it returns is untrusted, whatever the file says: a repository cannot vouch for
 * itself. Variable references such as `${VAR}` are expanded from `options.env` when given.
 *
 * @throws ConfigurationError naming the file and the field that is wrong (`invalid_mcp_config`),
 *   or the variable that is missing (`mcp_variable_missing`).
 * @public
 */
export function parseMcpJson(text: string, options: ParseMcpJsonOptions): McpServerConfig[] {
  const fail = (field: string, problem: string): never => {
    throw new ConfigurationError("invalid_mcp_config", `${options.source}: ${field} ${problem}.`, {
      data: { field, path: options.source },
    });
  };
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fail("the file", `is not JSON (${(error as Error).message})`);
  }
  const servers = isObject(document) ? document.mcpServers : undefined;
  if (!isObject(servers)) return fail("mcpServers", "must be an object of servers by name");
  return Object.entries(servers).map(([name, entry]) => {
    if (!isObject(entry)) return fail(`mcpServers.${name}`, "must be an object");
    const expanded = options.env === undefined ? entry : expandEntry(entry, options.env, `mcpServers.${name}`, options.source);
    return toConfig(name, expanded, options, (field, problem) => fail(`mcpServers.${name}.${field}`, problem));
  });
}

/**
 * The server names of a file, without checking more: what a host shows before the user trusts it.
 *
 * @public
 */
export function mcpJsonServerNames(text: string): string[] {
  try {
    const document: unknown = JSON.parse(text);
    const servers = isObject(document) ? document.mcpServers : undefined;
    return isObject(servers) ? Object.keys(servers) : [];
  } catch {
    return [];
  }
}

function toConfig(
  name: string,
  entry: Entry,
  options: ParseMcpJsonOptions,
  fail: (field: string, problem: string) => never,
): McpServerConfig {
  const type = entry.type;
  if (type !== undefined && !["stdio", "http", "sse", "streamable-http"].includes(String(type))) {
    fail("type", 'must be "stdio", "http" or "sse"');
  }
  if (typeof entry.command === "string") {
    if (type !== undefined && type !== "stdio") fail("type", `is ${JSON.stringify(type)} but the server has a command`);
    const cwd = optionalString(entry.cwd, "cwd", fail);
    return {
      name,
      command: entry.command,
      ...(entry.args === undefined ? {} : { args: stringArray(entry.args, "args", fail) }),
      ...(entry.env === undefined ? {} : { env: stringRecord(entry.env, "env", fail) }),
      cwd: cwd === undefined ? options.baseDirectory : isAbsolute(cwd) ? cwd : resolve(options.baseDirectory, cwd),
    };
  }
  if (typeof entry.url === "string") {
    const headers = entry.headers === undefined ? undefined : stringRecord(entry.headers, "headers", fail);
    const base = { name, url: entry.url, ...(headers === undefined ? {} : { headers }) };
    return type === "sse" ? { ...base, transport: "sse" } : base;
  }
  return fail("command", "or url is required");
}

// Only the fields that reach a process or a request; names and types are never expanded.
const EXPANDED_FIELDS = ["command", "args", "env", "cwd", "url", "headers"];

function expandEntry(entry: Entry, variables: McpVariables, prefix: string, path: string): Entry {
  const expand = (value: unknown, field: string): unknown => {
    if (typeof value === "string") return expandMcpVariables(value, variables, { field, path });
    if (Array.isArray(value)) return value.map((item, index) => expand(item, `${field}[${index}]`));
    if (isObject(value))
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, expand(item, `${field}.${key}`)]));
    return value;
  };
  const out: Record<string, unknown> = { ...entry };
  for (const field of EXPANDED_FIELDS) {
    if (field in out) out[field] = expand(out[field], `${prefix}.${field}`);
  }
  return out;
}

function isObject(value: unknown): value is Entry {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalString(value: unknown, field: string, fail: (field: string, problem: string) => never): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? value : fail(field, "must be a string");
}

function stringArray(value: unknown, field: string, fail: (field: string, problem: string) => never): string[] {
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string"))
    return fail(field, "must be an array of strings");
  return value;
}

function stringRecord(value: unknown, field: string, fail: (field: string, problem: string) => never): Record<string, string> {
  if (!isObject(value) || !Object.values(value).every((item) => typeof item === "string")) {
    return fail(field, "must map names to strings");
  }
  return { ...(value as Record<string, string>) };
}
