import { type AnyToolDefinition, defineTool, type ToolGroup } from "agent-tool-catalog";
import { conversationIdOf } from "../shared/conversation-id.js";
import { isoTime } from "../shared/iso-time.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { CallbackManager, DelayedCallback } from "./callback-manager.js";
import { CALLBACK_LIMITS } from "./in-process-callback-manager.js";

/**
 * Options of {@link callbackToolGroup}.
 *
 * @public
 */
export interface CallbackToolOptions {
  /**
   * The host's `EnableCallbacks` switch.
   * @defaultValue true
   */
  readonly enableCallbacks?: boolean;
  /** Schedules and fires the callbacks; without one the group is absent. */
  readonly manager?: CallbackManager;
}

const { minDelaySeconds, maxDelaySeconds, maxPendingPerConversation } = CALLBACK_LIMITS;

const schemas = lazySchemas((z) => {
  const setInput = z.object({
    delay_seconds: z
      .number()
      .int()
      .min(minDelaySeconds)
      .max(maxDelaySeconds)
      .describe(`Seconds from now, ${minDelaySeconds} to ${maxDelaySeconds}`),
    message: z.string().trim().min(1).max(4000).describe("What you should do when woken; it comes back to you as the new turn"),
  });
  const idInput = z.object({ id: z.string().min(1).describe("The callback's id, from set_delayed_callback") });
  const listInput = z.object({});
  return { setInput, idInput, listInput };
});

function view(callback: DelayedCallback): Record<string, unknown> {
  return { id: callback.id, status: callback.status, message: callback.message, due_at: isoTime(callback.dueAt) };
}

function createTools(manager: CallbackManager): AnyToolDefinition[] {
  const tags = ["builtin", "callback", "delay", "timer", "wake", "reminder"];
  return [
    defineTool({
      name: "set_delayed_callback",
      description: `Schedule a one-shot callback that re-invokes you in this conversation after a delay (${minDelaySeconds} s to 1 hour; at most ${maxPendingPerConversation} pending). Use it to check back on long-running work.`,
      inputSchema: schemas().setInput,
      tier: "deferred",
      mutating: true,
      annotations: { title: "Set delayed callback" },
      tags: [...tags, "schedule", "later"],
      handler: async (input, context) =>
        view(
          await manager.schedule({
            conversationId: conversationIdOf(context),
            delaySeconds: input.delay_seconds,
            message: input.message,
          }),
        ),
    }),
    defineTool({
      name: "cancel_delayed_callback",
      description: "Cancel a pending delayed callback.",
      inputSchema: schemas().idInput,
      tier: "deferred",
      mutating: true,
      annotations: { title: "Cancel delayed callback" },
      tags: [...tags, "cancel"],
      handler: async (input, context) => view(await manager.cancel(conversationIdOf(context), input.id)),
    }),
    defineTool({
      name: "list_delayed_callbacks",
      description: "List this conversation's pending delayed callbacks, soonest first.",
      inputSchema: schemas().listInput,
      tier: "deferred",
      annotations: { title: "List delayed callbacks", readOnlyHint: true },
      tags: [...tags, "list", "pending"],
      handler: async (_input, context) => (await manager.list(conversationIdOf(context))).map(view),
    }),
  ];
}

/**
 * The delayed-callback tools, present when `enableCallbacks` and a `manager` are given.
 *
 * @public
 */
export function callbackToolGroup(options: CallbackToolOptions): ToolGroup {
  const { manager } = options;
  return {
    name: "callbacks",
    enabled: (options.enableCallbacks ?? true) && manager !== undefined,
    tools: () => (manager === undefined ? [] : createTools(manager)),
  };
}
