import { z } from "zod";
import { type AnyToolDefinition, defineTool } from "../../src/index.js";

/** A small catalog used by several tests: two core tools and four deferred ones. */
export function sampleTools(): AnyToolDefinition[] {
  return [
    defineTool({
      name: "read",
      description: "Read a file from the workspace.",
      inputSchema: z.object({ path: z.string() }),
      handler: ({ path }) => `contents of ${path}`,
    }),
    defineTool({
      name: "write",
      description: "Write a file.",
      mutating: true,
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      handler: ({ path, content }) => ({ path, bytes: content.length }),
    }),
    defineTool({
      name: "git_log_search",
      description: "Search commit history by message or by diff content (pickaxe).",
      tier: "deferred",
      tags: ["git", "history"],
      inputSchema: z.object({
        query: z.string().describe("Text to look for in commits"),
        max_results: z.number().int().optional(),
      }),
      handler: ({ query }) => ({ commits: [`abc123 fix ${query}`] }),
    }),
    defineTool({
      name: "git_blame_context",
      description: "Blame annotations with surrounding context lines.",
      tier: "deferred",
      tags: ["git"],
      inputSchema: z.object({ path: z.string(), line: z.number().int() }),
      handler: ({ path, line }) => `${path}:${line} by alice`,
    }),
    defineTool({
      name: "web_fetch",
      description: "Fetch a single web page and return its text.",
      tier: "deferred",
      tags: ["web", "http"],
      inputSchema: z.object({ url: z.string().url() }),
      handler: ({ url }) => `page ${url}`,
    }),
    defineTool({
      name: "cron_create",
      description: "Create a recurring job on a 5-field UTC cron schedule.",
      tier: "deferred",
      mutating: true,
      tags: ["schedule"],
      inputSchema: z.object({ name: z.string(), schedule: z.string() }),
      handler: ({ name }) => ({ id: `job-${name}` }),
    }),
  ];
}
