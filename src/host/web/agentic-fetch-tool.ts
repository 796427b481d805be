import { type AnyToolDefinition, defineTool } from "agent-tool-catalog";
import { type AgentDepthOptions, checkAgentDepthOptions, childDepthOf } from "../agents/agent-depth.js";
import type { AgentRunner } from "../agents/agent-runner.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { fetchForCall } from "./fetch-for-call.js";
import type { WebFetcher } from "./web-fetcher.js";

const schemas = lazySchemas((z) => {
  const agenticInput = z.object({
    url: z.string().min(1).max(8192).describe("The http(s) URL of the page"),
    prompt: z.string().trim().min(1).max(10_000).describe("What to find or extract from the page"),
    timeout_seconds: z.number().min(1).max(120).optional().describe("Give up fetching after this many seconds (default 20)"),
  });
  return { agenticInput };
});

/** Page text handed to the sub-agent at most; a longer page is cut with a marker. */
const PAGE_CHARS_FOR_AGENT = 100_000;

/**
 * `agentic_fetch`: fetches a page and has a sub-agent read it for the prompt, so only the answer
 * (not the whole page) enters the caller's context.
 * @public
 */
export function createAgenticFetchTool(
  fetcher: WebFetcher,
  runner: AgentRunner,
  depthOptions: AgentDepthOptions,
): AnyToolDefinition {
  checkAgentDepthOptions(depthOptions, "createAgenticFetchTool");
  return defineTool({
    name: "agentic_fetch",
    description:
      "Fetch a web page and have a sub-agent answer a prompt about it; returns the answer, not the page. Use it for long pages.",
    inputSchema: schemas().agenticInput,
    tier: "deferred",
    annotations: { title: "Agentic fetch", readOnlyHint: true, openWorldHint: true },
    tags: ["builtin", "web", "fetch", "agent", "extract", "summarize", "page"],
    handler: async (input, context) => {
      const depth = childDepthOf(context, depthOptions);
      const page = await fetchForCall(fetcher, input, context);
      const cut = page.text.length > PAGE_CHARS_FOR_AGENT;
      const text = cut
        ? `${page.text.slice(0, PAGE_CHARS_FOR_AGENT)}\n[page cut at ${PAGE_CHARS_FOR_AGENT} characters]`
        : page.text;
      const prompt = [
        "Answer the request below using only the web page that follows. Quote the page where it helps; say so if the page does not answer it.",
        `Request: ${input.prompt}`,
        `<page url="${page.url}"${page.title === undefined ? "" : ` title="${page.title.replaceAll('"', "'")}"`}>`,
        text,
        "</page>",
      ].join("\n\n");
      const result = await runner.runPrompt({
        prompt,
        depth,
        parentRunId: context.runId,
        scope: context.scope,
        // The reader only reads the page it was given (hostile text, perhaps): no tool that acts.
        // (An empty list would mean "every tool"; task_complete is the one it may need.)
        allowedTools: ["task_complete"],
        signal: context.signal,
      });
      return `Source: ${page.url}\n\n${result.output}`;
    },
  });
}
