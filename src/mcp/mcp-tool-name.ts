import { createHash } from "node:crypto";
import {
  FOLDED_MCP_PREFIX,
  FOLDED_NAME_HASH_LENGTH,
  foldToolName,
  isLossyToolName,
  MAX_FOLDED_NAME_LENGTH,
} from "../tool/fold-tool-name.js";

/**
 * Every MCP tool's registry name starts with this.
 *
 * @public
 */
export const MCP_TOOL_NAME_PREFIX = FOLDED_MCP_PREFIX;

/**
 * Makes one part of `mcp_<server>_<tool>` safe for every provider: lower-case, accents dropped
 * (`café` → `cafe`), and every character outside `[a-z0-9_]` (the spec's `-`, `/`, `.` and
 * space, and anything else) replaced by `_`. So `read-file` and `read_file` are one name. The
 * folding itself is src/tool/fold-tool-name.ts, which the run layer matches list entries with.
 */
export function sanitizeMcpNamePart(part: string): string {
  return foldToolName(part);
}

/**
 * True when sanitizing `part` loses more than the spec's rule does (characters beyond `-`, `/`,
 * `.` and space): every tool name made with it then carries a hash of the raw names.
 */
export function isLossyMcpNamePart(part: string): boolean {
  return isLossyToolName(part);
}

/**
 * The registry name of an MCP tool: `mcp_<server>_<tool>`, both parts sanitized.
 *
 * A hash suffix (`_` and ten hex digits of a SHA-256 of the raw server and tool names, the same
 * in every process) is added when the name would lose what tells tools apart: when it is over
 * 64 characters (it keeps its first 53), or when a part had characters beyond the spec's
 * `-`, `/`, `.` and space (`日本語` and `中文` would both be `___`). Names that differ only by
 * the spec's rule (`Read-File`, `read.file`) stay equal: that collision is reported, not hidden.
 * @public
 */
export function mcpToolName(server: string, tool: string): string {
  const full = `${MCP_TOOL_NAME_PREFIX}${sanitizeMcpNamePart(server)}_${sanitizeMcpNamePart(tool)}`;
  const lossy = isLossyMcpNamePart(server) || isLossyMcpNamePart(tool);
  if (full.length <= MAX_FOLDED_NAME_LENGTH && !lossy) return full;
  const hash = createHash("sha256").update(server).update("\u0000").update(tool).digest("hex").slice(0, FOLDED_NAME_HASH_LENGTH);
  return `${full.slice(0, MAX_FOLDED_NAME_LENGTH - FOLDED_NAME_HASH_LENGTH - 1)}_${hash}`;
}
