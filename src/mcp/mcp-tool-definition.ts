import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import {
  type AnyToolDefinition,
  defineTool,
  type JsonObjectSchema,
  type ToolAnnotations,
  type ToolContent,
  type ToolContext,
  ToolDefinitionError,
  untrustedJsonChecker,
  untrustedJsonSchema,
  type ValidationIssue,
} from "agent-tool-catalog";
import { checkMcpInputSchema } from "./check-mcp-input-schema.js";
import { clip } from "./mcp-errors.js";
import { moveMcpPatternsToDescriptions } from "./move-mcp-patterns.js";
import { normalizeMcpInputSchema } from "./normalize-mcp-input-schema.js";

/**
 * The tags of every MCP tool; `mcp_server:<name>` is added per server.
 *
 * @public
 */
export const MCP_TOOL_TAGS: readonly string[] = Object.freeze(["mcp", "integration", "external", "dynamic"]);

const MAX_DESCRIPTION_LENGTH = 4000;
const MAX_TITLE_LENGTH = 200;

/**
 * Checks a result's `structuredContent` against the tool's `outputSchema` (off the host's thread);
 * resolves to the issues, empty when it conforms.
 */
export type McpOutputCheck = (structuredContent: unknown) => Promise<readonly ValidationIssue[]>;

/**
 * Calls a tool on the server and returns the text for the model. `checkOutput` is given for a
 * tool that declares an `outputSchema`.
 */
export type McpToolCaller = (
  mcpName: string,
  input: Record<string, unknown>,
  context: ToolContext,
  checkOutput: McpOutputCheck | undefined,
) => Promise<string | ToolContent>;

/** What {@link mcpToolDefinition} needs. */
export interface McpToolDefinitionInput {
  /** The server's name. */
  readonly server: string;
  /** Whether the host trusts the server's annotations. */
  readonly trusted: boolean;
  /** Time limit of compiling the input schema, and of checking one call's arguments, ms. */
  readonly schemaTimeoutMs: number;
  /** The tool as the server lists it. */
  readonly tool: Tool;
  /** Its registry name (`mcp_<server>_<tool>`). */
  readonly name: string;
  /** How a call reaches the server. */
  readonly call: McpToolCaller;
}

/** A definition plus a fingerprint: same fingerprint, same definition, nothing to update. */
export interface McpToolDefinition {
  /** The catalog definition (deferred, tagged). */
  readonly definition: AnyToolDefinition;
  /** A stable string of everything the model sees of the tool. */
  readonly fingerprint: string;
}

/**
 * Turns a listed MCP tool into a deferred catalog tool. It is `mutating` unless a trusted server
 * says `readOnlyHint: true` without `destructiveHint: true`; an untrusted server's hints are not
 * copied at all (only its title is), so nothing downstream can mistake them for facts.
 *
 * @throws ToolDefinitionError when the tool's input schema is not a valid JSON object schema.
 */
export function mcpToolDefinition(input: McpToolDefinitionInput): McpToolDefinition {
  const { tool, server, trusted } = input;
  const hints = tool.annotations ?? {};
  const mutating = !(trusted && hints.readOnlyHint === true && hints.destructiveHint !== true);
  const title = tool.title ?? hints.title;
  const annotations = annotationsOf(trusted, title === undefined ? undefined : clip(title, MAX_TITLE_LENGTH), hints);
  const description = describe(tool, server, title);
  // The server's regular expressions are never run by the catalog (see moveMcpPatternsToDescriptions).
  const inputSchema = checkedSchema(tool.inputSchema, "input", input.name);
  const mcpName = tool.name;
  const outputSchema = boundedOutputSchema(tool, input.name);
  const checkOutput =
    outputSchema === undefined ? undefined : untrustedJsonChecker(outputSchema, { timeoutMs: input.schemaTimeoutMs });
  const definition = defineTool<Record<string, unknown>, string | ToolContent>({
    name: input.name,
    description,
    tier: "deferred",
    mutating,
    annotations,
    tags: [...MCP_TOOL_TAGS, `mcp_server:${server}`],
    // Compiled and checked in a worker thread with a time limit: the server may have built it to
    // make the validator slow (hundreds of nested recursive $refs compile for minutes; anyOf
    // branches that re-check a nested value double the work per level).
    inputSchema: untrustedJsonSchema(inputSchema, { timeoutMs: input.schemaTimeoutMs }),
    handler: (args, context) => input.call(mcpName, args, context, checkOutput),
  });
  // The output schema is in the fingerprint: a changed one must reach the handler's check.
  const fingerprint = JSON.stringify([mcpName, description, annotations, mutating, inputSchema, outputSchema ?? null]);
  return { definition, fingerprint };
}

/**
 * The schema a tool's `outputSchema` is checked with, as the MCP SDK's own client checks it (the
 * spec: servers MUST conform to it, clients SHOULD validate), or `undefined` when it has none.
 * Like input schemas, a server's output schema is untrusted: draft-04 forms are normalised, its
 * regular expressions are not run (the server produced the value), it is compiled and checked in
 * the schema check thread, and it is held to the input schema's bounds (`checkMcpInputSchema`:
 * 1 Mi characters, 20,000 nodes, 64 levels, ...). Unbounded, a server's 9 MiB output schema was
 * kept whole with the tool, and one nested 100,000 levels overflowed the stack serializing it.
 *
 * @throws ToolDefinitionError `invalid_output_schema` when it is past a bound or cannot compile:
 *   the tool is refused (its results could not be held to the schema), not kept unchecked.
 */
function boundedOutputSchema(tool: Tool, name: string): JsonObjectSchema | undefined {
  const schema = tool.outputSchema;
  if (typeof schema !== "object" || schema === null) return undefined;
  return checkedSchema(schema, "output", name);
}

/**
 * A server's `schema` as the catalog keeps it, input or output alike: draft-04 forms normalised,
 * regular expressions moved to descriptions, held to `checkMcpInputSchema`'s bounds.
 *
 * @throws ToolDefinitionError `invalid_input_schema` or `invalid_output_schema` past a bound.
 */
function checkedSchema(schema: Readonly<Record<string, unknown>>, which: "input" | "output", name: string): JsonObjectSchema {
  const normalized = moveMcpPatternsToDescriptions(normalizeMcpInputSchema(schema)) as JsonObjectSchema;
  const problem = checkMcpInputSchema(normalized);
  if (problem !== undefined) {
    throw new ToolDefinitionError(`invalid_${which}_schema`, `Tool "${name}": ${which}Schema is invalid: ${problem}.`, {
      data: { name },
    });
  }
  return normalized;
}

function describe(tool: Tool, server: string, title: string | undefined): string {
  const own = (tool.description ?? "").trim() || title?.trim() || `The "${clip(tool.name, 80)}" tool.`;
  // The origin goes last: listings show the first sentence, and find_tool finds the server by it.
  return `${clip(own, MAX_DESCRIPTION_LENGTH)}\n\nFrom MCP server "${clip(server, 80)}" (tool "${clip(tool.name, 80)}").`;
}

function annotationsOf(trusted: boolean, title: string | undefined, hints: NonNullable<Tool["annotations"]>): ToolAnnotations {
  const out: { -readonly [Key in keyof ToolAnnotations]: ToolAnnotations[Key] } = {};
  if (title !== undefined) out.title = title;
  if (!trusted) return out;
  if (typeof hints.readOnlyHint === "boolean") out.readOnlyHint = hints.readOnlyHint;
  if (typeof hints.destructiveHint === "boolean") out.destructiveHint = hints.destructiveHint;
  if (typeof hints.idempotentHint === "boolean") out.idempotentHint = hints.idempotentHint;
  if (typeof hints.openWorldHint === "boolean") out.openWorldHint = hints.openWorldHint;
  return out;
}
