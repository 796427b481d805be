import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { checkNumberOption } from "../errors/check-number-option.js";
import { requireCursorServer } from "./cursor-server.js";
import { cutToBytes } from "./cut-to-bytes.js";
import { describeBlock } from "./format-mcp-result.js";
import { clip } from "./mcp-errors.js";
import type { McpServerHandle } from "./mcp-server-handle.js";
import type { McpServerSet } from "./mcp-server-set.js";

/**
 * Options of {@link createMcpPromptTools}.
 *
 * @public
 */
export interface McpPromptToolsOptions {
  /** Largest output of one call, UTF-8 bytes: a whole number at least 1. @defaultValue 100000 */
  readonly maxOutputBytes?: number;
  /** Most prompts listed per server in one call: a whole number at least 1, or `Infinity`. @defaultValue 50 */
  readonly maxPromptsPerServer?: number;
}

const PROMPT_TAGS = ["mcp", "prompts", "templates", "integration", "external"];

/**
 * `list_mcp_prompts` and `get_mcp_prompt`: deferred tools over the prompts (templates with
 * arguments) of every server of the set the calling run may use. A prompt comes back as its
 * messages in text (`role: text`), binary content summarized; outputs are bounded.
 * @public
 */
export function createMcpPromptTools(servers: McpServerSet, options: McpPromptToolsOptions = {}): AnyToolDefinition[] {
  const maxBytes =
    checkNumberOption(options.maxOutputBytes, "maxOutputBytes", { min: 1, integer: true }, "createMcpPromptTools") ?? 100_000;
  const perServer =
    checkNumberOption(
      options.maxPromptsPerServer,
      "maxPromptsPerServer",
      { min: 1, integer: true, infinite: true },
      "createMcpPromptTools",
    ) ?? 50;
  const list = defineTool({
    name: "list_mcp_prompts",
    description:
      "List the prompt templates that connected MCP servers offer, with their arguments. Fill one in with get_mcp_prompt.",
    tier: "deferred",
    tags: PROMPT_TAGS,
    annotations: { title: "List MCP prompts", readOnlyHint: true },
    inputSchema: z.object({
      server: z.string().max(200).optional().describe("Only this server (default: every server)."),
      cursor: z.string().max(2000).optional().describe("next_cursor of a previous call; pass the server it came from too."),
    }),
    handler: async ({ server, cursor }, context) => {
      requireCursorServer("list_mcp_prompts", server, cursor);
      const handles =
        server === undefined
          ? servers.list(context.runId).filter((handle) => handle.supportsPrompts)
          : [requirePromptServer(servers, server, context.runId)];
      const listings = await Promise.all(
        handles.map(async (handle) => {
          try {
            const page = await handle.listPrompts({ ...(cursor === undefined ? {} : { cursor }), signal: context.signal });
            return {
              server: handle.name,
              prompts: page.prompts.slice(0, perServer).map((prompt) => ({
                name: clip(prompt.name, 200),
                ...(prompt.description === undefined ? {} : { description: clip(prompt.description, 300) }),
                arguments: (prompt.arguments ?? []).map((argument) => ({
                  name: clip(argument.name, 100),
                  required: argument.required === true,
                  ...(argument.description === undefined ? {} : { description: clip(argument.description, 200) }),
                })),
              })),
              ...(page.nextCursor === undefined ? {} : { next_cursor: page.nextCursor }),
            };
          } catch (error) {
            if (context.signal.aborted) throw error;
            return { server: handle.name, prompts: [], error: error instanceof Error ? error.message : String(error) };
          }
        }),
      );
      return cutToBytes(JSON.stringify({ servers: listings }), maxBytes);
    },
  });
  const get = defineTool({
    name: "get_mcp_prompt",
    description: "Get one prompt template of a connected MCP server, filled in with its arguments (from list_mcp_prompts).",
    tier: "deferred",
    tags: PROMPT_TAGS,
    annotations: { title: "Get MCP prompt", readOnlyHint: true },
    inputSchema: z.object({
      server: z.string().max(200).describe("The server's name, as list_mcp_prompts shows it."),
      name: z.string().min(1).max(200).describe("The prompt's name."),
      arguments: z.record(z.string(), z.string().max(10_000)).optional().describe("The prompt's arguments, by name."),
    }),
    handler: async ({ server, name, arguments: args }, context) => {
      const handle = requirePromptServer(servers, server, context.runId);
      const result = await handle.getPrompt(name, args ?? {}, { signal: context.signal });
      return cutToBytes(promptText(result), maxBytes);
    },
  });
  return [list, get];
}

/** A prompt's messages as text, one `role: text` block each. */
export function promptText(result: GetPromptResult): string {
  const head = result.description === undefined ? [] : [result.description];
  const messages = result.messages.map((message) => `${message.role}: ${describeBlock(message.content)}`);
  return [...head, ...messages].join("\n\n") || "(the prompt is empty)";
}

function requirePromptServer(servers: McpServerSet, name: string, runId: string): McpServerHandle {
  const handle = servers.get(name, runId);
  if (handle !== undefined) return handle;
  const names = servers.list(runId).map((server) => server.name);
  throw new ToolError("unknown_mcp_server", `No connected MCP server is named ${JSON.stringify(clip(name, 80))}.`, {
    hint: names.length > 0 ? `Use one of: ${names.map((n) => JSON.stringify(n)).join(", ")}.` : "No MCP server is connected.",
  });
}
