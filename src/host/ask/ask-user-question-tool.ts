import { randomUUID } from "node:crypto";
import { type AnyToolDefinition, defineTool, type ToolGroup } from "agent-tool-catalog";
import { conversationIdOf } from "../shared/conversation-id.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import type { QuestionBroker } from "./question-broker.js";

/**
 * Options of {@link askUserQuestionToolGroup}.
 *
 * @public
 */
export interface AskUserQuestionOptions {
  /** Reaches the user; without one the tool is absent. */
  readonly broker?: QuestionBroker;
}

const schemas = lazySchemas((z) => {
  const askInput = z.object({
    question: z.string().trim().min(1).max(2000).describe("The question, clear and specific"),
    header: z.string().trim().min(1).max(40).optional().describe("A very short label for the question"),
    options: z
      .array(z.object({ label: z.string().trim().min(1).max(100), description: z.string().max(500).optional() }))
      .min(2)
      .max(8)
      .optional()
      .describe("2-8 choices; the user may still answer in their own words"),
    multi_select: z.boolean().optional().describe("Allow several choices (default false)"),
  });
  return { askInput };
});

/**
 * `AskUserQuestion`: always available (it bypasses allowed-tools and skill constraints).
 *
 * @public
 */
export function createAskUserQuestionTool(broker: QuestionBroker): AnyToolDefinition {
  return defineTool({
    name: "AskUserQuestion",
    description:
      "Ask the user a question and wait for the answer, optionally with 2-8 choices. Ask only what you cannot find out yourself.",
    inputSchema: schemas().askInput,
    tier: "core",
    annotations: { title: "Ask the user" },
    tags: ["builtin", "ask", "user", "question", "clarify", "choice", "human"],
    handler: async (input, context) => {
      const labels = new Set<string>();
      for (const option of input.options ?? []) labels.add(option.label);
      const answer = await broker.ask(
        {
          id: `q_${randomUUID().replaceAll("-", "").slice(0, 12)}`,
          runId: context.runId,
          conversationId: conversationIdOf(context),
          question: input.question,
          header: input.header,
          options: (input.options ?? []).map((option) => ({ label: option.label, description: option.description })),
          multiSelect: input.multi_select ?? false,
        },
        context.signal,
      );
      const picked = answer.answers.map((text) => (labels.has(text) ? text : `(own words) ${text}`));
      const note = answer.note === undefined || answer.note === "" ? "" : `\nNote: ${answer.note}`;
      return picked.length === 0 ? `The user gave no answer.${note}` : `The user answered: ${picked.join("; ")}${note}`;
    },
  });
}

/**
 * `AskUserQuestion` as a group, present when a `broker` is given.
 *
 * @public
 */
export function askUserQuestionToolGroup(options: AskUserQuestionOptions): ToolGroup {
  const { broker } = options;
  return {
    name: "ask",
    enabled: broker !== undefined,
    tools: () => (broker === undefined ? [] : [createAskUserQuestionTool(broker)]),
  };
}
