import { randomUUID } from "node:crypto";
import type { ElicitResult, PrimitiveSchemaDefinition } from "@modelcontextprotocol/sdk/types.js";
import { countOf } from "../errors/count-of.js";
import type { McpClientHandlers } from "./mcp-client-handlers.js";

/**
 * The question broker's shape (`QuestionBroker` of `agent-tool-catalog/host`, which fits): the
 * same channel `AskUserQuestion` uses reaches the user for a server's form.
 * @public
 */
export interface McpQuestionChannel {
  ask(
    question: {
      readonly id: string;
      readonly runId: string;
      readonly conversationId: string;
      readonly question: string;
      readonly header?: string | undefined;
      readonly options: readonly { readonly label: string; readonly description?: string | undefined }[];
      readonly multiSelect: boolean;
    },
    signal: AbortSignal,
  ): Promise<{ readonly answers: readonly string[]; readonly note?: string | undefined }>;
}

/**
 * Options of {@link mcpElicitationFromQuestionBroker}.
 *
 * @public
 */
export interface McpElicitationBrokerOptions {
  /** The conversation the questions belong to. @defaultValue the run id, or the server name */
  readonly conversationId?: string;
}

const DECLINE = "Decline";

/**
 * An elicitation handler that asks the user through a question broker, one question per form
 * field (enums and booleans as choices, other fields answered in words). The first question
 * names the server and its message; answering "Decline" there declines the form, and a question
 * dismissed (the broker rejects) cancels it. Answers are converted to the field's type; one that
 * does not convert (a number field answered "soon") cancels the form rather than send a wrong value.
 * @public
 */
export function mcpElicitationFromQuestionBroker(
  broker: McpQuestionChannel,
  options: McpElicitationBrokerOptions = {},
): NonNullable<McpClientHandlers["elicitation"]> {
  return async (request, context): Promise<ElicitResult> => {
    const runId = context.runId ?? "";
    const conversationId = options.conversationId ?? context.runId ?? context.server;
    const ask = (question: string, header: string, choices: readonly string[], multiSelect = false) =>
      broker.ask(
        {
          id: randomUUID(),
          runId,
          conversationId,
          question,
          header,
          options: choices.map((label) => ({ label })),
          multiSelect,
        },
        context.signal,
      );
    try {
      const intro = await ask(
        `The MCP server "${context.server}" asks: ${request.message}\nContinue and fill in ${countOf(Object.keys(request.requestedSchema.properties).length, "field")}?`,
        context.server,
        ["Continue", DECLINE],
      );
      if (intro.answers[0] === DECLINE) return { action: "decline" };
      const content: Record<string, string | number | boolean | string[]> = {};
      const required = new Set(request.requestedSchema.required ?? []);
      for (const [field, schema] of Object.entries(request.requestedSchema.properties)) {
        const answer = await ask(questionFor(field, schema, required.has(field)), field, choicesOf(schema), isMulti(schema));
        const value = convert(schema, answer.answers);
        if (value === undefined) {
          if (required.has(field)) return { action: "cancel" };
          continue;
        }
        // Defined, not assigned: a field named `__proto__` (a server's schema is JSON, where it is an
        // ordinary key) would otherwise set the object's prototype and vanish from the answer.
        Object.defineProperty(content, field, { value, enumerable: true, writable: true, configurable: true });
      }
      return { action: "accept", content };
    } catch {
      // Dismissed or timed out: the user did not answer.
      return { action: "cancel" };
    }
  };
}

type Schema = PrimitiveSchemaDefinition & {
  readonly title?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  readonly oneOf?: readonly { readonly const: string; readonly title?: string }[];
  readonly items?: { readonly enum?: readonly string[]; readonly anyOf?: readonly { readonly const: string }[] };
};

function questionFor(field: string, schema: PrimitiveSchemaDefinition, required: boolean): string {
  const s = schema as Schema;
  const label = s.title ?? field;
  const what = s.description === undefined ? "" : ` (${s.description})`;
  return `${label}${what}${required ? "" : " - optional, leave empty to skip"}`;
}

function choicesOf(schema: PrimitiveSchemaDefinition): string[] {
  const s = schema as Schema;
  if (s.type === "boolean") return ["Yes", "No"];
  if (Array.isArray(s.enum)) return [...s.enum];
  if (Array.isArray(s.oneOf)) return s.oneOf.map((option) => option.const);
  if (s.type === "array") return [...(s.items?.enum ?? s.items?.anyOf?.map((option) => option.const) ?? [])];
  return [];
}

function isMulti(schema: PrimitiveSchemaDefinition): boolean {
  return (schema as Schema).type === "array";
}

function convert(
  schema: PrimitiveSchemaDefinition,
  answers: readonly string[],
): string | number | boolean | string[] | undefined {
  const s = schema as Schema;
  const first = answers[0]?.trim() ?? "";
  if (s.type === "array") return answers.length === 0 ? undefined : [...answers];
  if (first === "") return undefined;
  if (s.type === "boolean") return /^(yes|true|y)$/i.test(first) ? true : /^(no|false|n)$/i.test(first) ? false : undefined;
  if (s.type === "number" || s.type === "integer") {
    const value = Number(first);
    if (!Number.isFinite(value) || (s.type === "integer" && !Number.isInteger(value))) return undefined;
    return value;
  }
  return first;
}
