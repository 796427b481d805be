// Shared catalog of the rich-result, hostile-output and index tests: a listing run (one tool named
// in the index), rich results with an image, a PDF, a TIFF and a text file, and hostile outputs; and
// an AI SDK model that calls one tool and is done.
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from "@ai-sdk/provider";
import { createRegistry, defineTool, type Registry, type Run, toolContent } from "agent-tool-catalog";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";

/** A 1x1 PNG. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
/** The bytes of "%PDF-1.4", enough to tell a PDF part by its data. */
export const PDF = Buffer.from("%PDF-1.4\n").toString("base64");
/** A part the providers take no image of. */
export const TIFF = Buffer.from("II*\0").toString("base64");

interface Hostile {
  self?: Hostile;
}

/** A registry with rich, plain and hostile tools. */
export function adapterRegistry(): Registry {
  const circular: Hostile = {};
  circular.self = circular;
  return createRegistry({
    tools: [
      defineTool({
        name: "screenshot",
        description: "Take a screenshot of the page.",
        inputSchema: z.object({}),
        handler: () =>
          toolContent([
            { type: "text", text: "The page:" },
            { type: "image", data: PNG, mediaType: "image/png" },
            { type: "file", data: PDF, mediaType: "application/pdf", filename: "page.pdf" },
            { type: "image", data: TIFF, mediaType: "image/tiff" },
            { type: "file", data: Buffer.from("hello\n").toString("base64"), mediaType: "text/plain", filename: "notes.txt" },
          ]),
      }),
      defineTool({
        name: "echo",
        description: "Echo.",
        inputSchema: z.object({ text: z.string() }),
        handler: ({ text }) => text,
      }),
      defineTool({ name: "bigint", description: "A BigInt.", inputSchema: z.object({}), handler: () => ({ count: 10n ** 20n }) }),
      defineTool({ name: "circular", description: "A cycle.", inputSchema: z.object({}), handler: () => circular }),
      defineTool({
        name: "hostile",
        description: "A getter and a toJSON that throw.",
        inputSchema: z.object({}),
        handler: () => ({
          fine: 1,
          get secret(): string {
            throw new Error("no");
          },
          nested: {
            toJSON() {
              throw new Error("no");
            },
          },
        }),
      }),
      defineTool({
        name: "note_archive",
        description: "Archive old notes. Moves them away.",
        inputSchema: z.object({}),
        handler: () => "archived",
      }),
    ],
  });
}

/** A listing run: `note_archive` is named in the index and reached through `toolbox`. */
export function listingRun(registry: Registry = adapterRegistry()): Run {
  return registry.createRun({ environment: {}, loadModes: { note_archive: "discoverable" } });
}

/** A run whose tools are all sent (no index). */
export function plainRun(registry: Registry = adapterRegistry()): Run {
  return registry.createRun();
}

/**
 * An AI SDK model that calls `toolName` with `input` (JSON text) at its first step and says "done"
 * at every later one; `seen` holds what each step was sent.
 */
export function toolCallThenDoneModel(
  toolName: string,
  input: string,
): { model: MockLanguageModelV3; seen: LanguageModelV3CallOptions[] } {
  const seen: LanguageModelV3CallOptions[] = [];
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options): Promise<LanguageModelV3GenerateResult> => {
      seen.push(options);
      return seen.length === 1
        ? {
            content: [{ type: "tool-call", toolCallId: "c1", toolName, input }],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          }
        : { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
  return { model, seen };
}
