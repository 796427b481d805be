import { type AnyToolDefinition, BUILTIN_TAG, defineTool, type ToolGroup } from "agent-tool-catalog";
import { conversationIdOf } from "../shared/conversation-id.js";
import { checkEntityName } from "../shared/entity-name.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import {
  DirectoryPromptExtensionStore,
  InMemoryPromptExtensionStore,
  type PromptExtensionStore,
} from "./prompt-extension-store.js";

/**
 * Options of {@link promptExtensionToolGroup}.
 *
 * @public
 */
export interface PromptExtensionToolOptions {
  /** Keep extensions as files here (`behaviors/`, `talents/`). Ignored when `store` is given. */
  readonly directory?: string;
  /** Where extensions are kept. @defaultValue a directory store on `directory`, else one in memory */
  readonly store?: PromptExtensionStore;
}

const schemas = lazySchemas((z) => {
  const createInput = z.object({
    kind: z.enum(["behavior", "talent"]).describe("behavior: how you should always work; talent: know-how for one kind of task"),
    name: z.string().min(1).max(64).describe("Its name: lower-case letters, digits, - and _"),
    description: z.string().trim().min(1).max(300).describe("One line: what it does or when it applies"),
    content: z.string().trim().min(1).max(20_000).describe("The prompt text (Markdown), written as instructions to yourself"),
  });
  return { createInput };
});

/**
 * `create_prompt_extension`: saves a behavior or talent prompt extension for the host to put into
 * later system prompts. Always registered (extensions are kept in memory when the host gives no
 * store or directory). It changes what future sessions are told, so it asks approval like a
 * destructive tool.
 * @public
 */
export function createPromptExtensionTool(store: PromptExtensionStore): AnyToolDefinition {
  return defineTool({
    name: "create_prompt_extension",
    description:
      "Create a behavior or talent prompt extension: standing instructions (behavior) or task know-how (talent) added to later system prompts.",
    inputSchema: schemas().createInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Create prompt extension" },
    tags: [BUILTIN_TAG, "prompt", "extension", "behavior", "talent", "instructions", "create", "memory"],
    handler: async (input, context) => {
      const name = checkEntityName("Prompt extension", input.name);
      await store.create({
        kind: input.kind,
        name,
        description: input.description,
        content: input.content,
        createdBy: conversationIdOf(context),
      });
      return {
        created: `${input.kind}/${name}`,
        note: "Saved. The host adds it to later system prompts; it does not change this turn.",
      };
    },
  });
}

/**
 * `create_prompt_extension`: always present (the spec's "always registered").
 *
 * @public
 */
export function promptExtensionToolGroup(options: PromptExtensionToolOptions = {}): ToolGroup {
  const store =
    options.store ??
    (options.directory === undefined || options.directory === ""
      ? new InMemoryPromptExtensionStore()
      : new DirectoryPromptExtensionStore(options.directory));
  return { name: "prompt_extensions", enabled: true, tools: () => [createPromptExtensionTool(store)] };
}
