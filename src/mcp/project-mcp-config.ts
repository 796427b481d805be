import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type { McpVariables } from "./expand-mcp-variables.js";
import type { McpServerConfig } from "./mcp-server-config.js";
import type { McpTrustStore } from "./mcp-trust-store.js";
import { mcpJsonServerNames, parseMcpJson } from "./parse-mcp-json.js";
import { readSmallRegularFile } from "./small-file.js";

/** A `.mcp.json` past this is refused unread: it comes from the repository, before anyone trusted it. */
const MAX_PROJECT_CONFIG_BYTES = 1024 * 1024;

/**
 * Options of {@link loadProjectMcpConfig}.
 *
 * @public
 */
export interface LoadProjectMcpConfigOptions {
  /** Where the user's trust decisions are kept. */
  readonly trustStore: McpTrustStore;
  /** Variables for `${VAR}` references in the file (see `parseMcpJson`); never `process.env` by default. */
  readonly env?: McpVariables;
  /** The file name in the workspace. @defaultValue `".mcp.json"` */
  readonly fileName?: string;
  /**
   * Reads a file; `undefined` when it does not exist.
   * @defaultValue reads only a regular file of at most 1 MiB (a FIFO, a device such as a symlink to
   * `/dev/zero`, a directory or a larger file is an `invalid_mcp_config` error, never a hang), with
   * ENOENT as `undefined`
   */
  readonly readFile?: (path: string) => Promise<Uint8Array | undefined>;
}

/**
 * What a workspace's MCP config holds, and whether it may be used.
 *
 * @public
 */
export interface ProjectMcpConfig {
  /** The file's absolute path. */
  readonly path: string;
  /** True when the file exists. */
  readonly found: boolean;
  /** SHA-256 (hex) of the file's bytes; pass it to `trustStore.trust(path, digest)` to trust it. */
  readonly digest: string | undefined;
  /** True when the user trusted exactly these bytes. */
  readonly trusted: boolean;
  /** The servers, only when trusted; empty otherwise. All are untrusted servers (annotations ignored). */
  readonly servers: readonly McpServerConfig[];
  /** The server names in the file, trusted or not, to show the user what trusting it would start. */
  readonly serverNames: readonly string[];
}

/**
 * Reads a workspace's `.mcp.json`, but hands out its servers only when the user trusted the
 * file's current digest: project config can start arbitrary commands, and a cloned repository
 * must not do that on its own. This is the spec's `--trust-workspace` as an API: show
 * `serverNames`, ask, call `trustStore.trust(path, digest)`, load again.
 *
 * @throws ConfigurationError when a trusted file is not a valid `.mcp.json`, or (with the default
 * `readFile`) when the path is not a regular file of at most 1 MiB.
 *
 * @example
 * ```ts
 * let project = await loadProjectMcpConfig(workspace, { trustStore });
 * if (project.found && !project.trusted && (await askUser(project.serverNames))) {
 *   await trustStore.trust(project.path, project.digest as string);
 *   project = await loadProjectMcpConfig(workspace, { trustStore });
 * }
 * await connectMcpServers(registry, project.servers);
 * ```
 * @public
 */
export async function loadProjectMcpConfig(workspace: string, options: LoadProjectMcpConfigOptions): Promise<ProjectMcpConfig> {
  const directory = resolve(workspace);
  const path = join(directory, options.fileName ?? ".mcp.json");
  const bytes = await (options.readFile ?? readIfExists)(path);
  if (bytes === undefined) return { path, found: false, digest: undefined, trusted: false, servers: [], serverNames: [] };
  const digest = createHash("sha256").update(bytes).digest("hex");
  const text = new TextDecoder().decode(bytes);
  const serverNames = mcpJsonServerNames(text);
  const trusted = await options.trustStore.isTrusted(path, digest);
  if (!trusted) return { path, found: true, digest, trusted: false, servers: [], serverNames };
  const servers = parseMcpJson(text, {
    baseDirectory: directory,
    source: path,
    ...(options.env === undefined ? {} : { env: options.env }),
  });
  return { path, found: true, digest, trusted: true, servers, serverNames };
}

function readIfExists(path: string): Promise<Uint8Array | undefined> {
  return readSmallRegularFile(path, { maxBytes: MAX_PROJECT_CONFIG_BYTES, code: "invalid_mcp_config" });
}
