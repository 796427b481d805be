import { ConfigurationError, type Registry } from "agent-tool-catalog";
import { isLossyMcpNamePart, sanitizeMcpNamePart } from "./mcp-tool-name.js";

interface Claim {
  readonly name: string;
  readonly runId: string | undefined;
}

// Per registry, the servers connected to it. Keyed by the sanitized name, which is what tool names
// are made of: "my server" and "my_server" would register the same `mcp_my_server_*` tools.
const claimsOf = new WeakMap<Registry, Map<string, Claim[]>>();

/**
 * The key two servers clash on when they make the same tool names. A name that sanitizing loses
 * characters of (`日本`, `中文`: both `__`) gives tool names hashed with the raw name, so only the
 * same raw name makes the same tools; keyed by its sanitized form, the second such server was
 * refused as making "the same tool names" when it made none of them.
 */
function claimKey(name: string): string {
  return isLossyMcpNamePart(name) ? `\u0000${name}` : sanitizeMcpNamePart(name);
}

/**
 * Reserves a server name in a registry, for the lifetime of the connection. Two servers clash
 * when one is shared (every run sees it) or both belong to the same run: the second one's tools
 * would all collide with the first one's. Servers private to different runs do not clash.
 *
 * @returns the release function.
 * @throws ConfigurationError `duplicate_mcp_server` naming the server that holds the name.
 */
export function claimMcpServerName(registry: Registry, name: string, runId: string | undefined): () => void {
  let claims = claimsOf.get(registry);
  if (claims === undefined) {
    claims = new Map();
    claimsOf.set(registry, claims);
  }
  const key = claimKey(name);
  const held = claims.get(key) ?? [];
  const clash = held.find((claim) => claim.runId === undefined || runId === undefined || claim.runId === runId);
  if (clash !== undefined) {
    const where = clash.runId === undefined ? "for every run" : `for run ${clash.runId}`;
    const same = clash.name === name ? "" : ` ("${clash.name}" and "${name}" make the same tool names)`;
    throw new ConfigurationError(
      "duplicate_mcp_server",
      `An MCP server named "${clash.name}" is already connected to this registry ${where}${same}; close it first or connect this one under another name.`,
      { data: { name, existing: clash.name, runId: runId ?? null, existingRunId: clash.runId ?? null } },
    );
  }
  const claim: Claim = { name, runId };
  claims.set(key, [...held, claim]);
  const map = claims;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const rest = (map.get(key) ?? []).filter((each) => each !== claim);
    if (rest.length === 0) map.delete(key);
    else map.set(key, rest);
  };
}
