// Free names the @example blocks lean on, declared for scripts/check-doc-examples.ts. Each is what
// a reader would have at that point of their own code.
import type AnthropicClient from "@anthropic-ai/sdk";
import type { AnyToolDefinition, Registry, Run, ToolDefinition } from "agent-tool-catalog";
import type { McpTrustStore } from "agent-tool-catalog/mcp";
import type OpenAI from "openai";

declare global {
  const run: Run;
  const registry: Registry;
  const model: string;
  /** A conversation the host stored, in its provider's message shape. */
  const messages: unknown[];
  const prompt: string;
  const anthropic: AnthropicClient;
  const openai: OpenAI;
  const base64: string;
  const repo: string;
  const workspace: string;
  const recipesDir: string;
  const hasCron: () => boolean;
  const cronTools: AnyToolDefinition[];
  const echo: AnyToolDefinition;
  const readNote: ToolDefinition<{ title: string }, string>;
  const trustStore: McpTrustStore;
  const onFire: (callback: import("agent-tool-catalog/host").DelayedCallback) => void;
  function askUser(question: unknown): Promise<boolean>;
  // Third-party names a snippet uses as its reader imported them.
  const z: typeof import("zod").z;
  const generateText: typeof import("ai").generateText;
  const stepCountIs: typeof import("ai").stepCountIs;
  const trace: typeof import("@opentelemetry/api").trace;
  const Anthropic: typeof import("@anthropic-ai/sdk").default;
}
