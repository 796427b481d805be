import {
  type AnyToolDefinition,
  approvalRequiredBy,
  ConfigurationError,
  type JsonSchema,
  type Run,
  type ToolCallErrorInfo,
  type ToolContent,
  type ToolDefinition,
  type ToolDescriptor,
} from "agent-tool-catalog";
import { dynamicTool, jsonSchema, type ModelMessage, type Tool, type ToolSet, tool } from "ai";
import { checkChoiceOption } from "../../errors/check-choice-option.js";
import { callSafely, duplicateCallIdResult } from "../shared/safe-call.js";
import type { ToolResultMediaOptions } from "../shared/tool-result-media.js";
import { readMediaOptions } from "../shared/tool-result-media.js";
import { type AiSdkContentOutput, executeOutput, toModelOutput } from "./ai-sdk-model-output.js";
import { approvalMismatch, mismatchedApprovalResult } from "./approved-call-check.js";
import { noteRequestedTool, requestedToolOption } from "./approved-tools.js";

/**
 * How approvals of `approval: "destructive" | "all"` runs are asked.
 *
 * @public
 */
export type AiSdkApprovalFlow = "broker" | "ai-sdk";

/**
 * Tool definitions by name, to type the tools of {@link createAiSdkTools}.
 *
 * @public
 */
export type AiSdkToolDefinitions = Readonly<Record<string, AnyToolDefinition>>;

/**
 * Options of {@link createAiSdkTools}.
 *
 * @public
 */
export interface AiSdkToolsOptions<Definitions extends AiSdkToolDefinitions = AiSdkToolDefinitions>
  extends ToolResultMediaOptions {
  /**
   * `"broker"`: `execute` waits on the run's approval broker (the loop pauses inside the call).
   * `"ai-sdk"`: tools get `needsApproval`, so `generateText` stops with a `tool-approval-request`
   * and the host answers with a `tool-approval-response` message, as the AI SDK documents; the run
   * then does not ask again.
   * @defaultValue `"broker"`
   */
  readonly approvalFlow?: AiSdkApprovalFlow;
  /**
   * The definitions of the tools to type, by name (each key must be its tool's name): their calls
   * and results in `result.steps` get the handler's input and output types. Every other tool of
   * the run (`find_tool`, `toolbox`, MCP tools) is a dynamic tool, whose calls come with
   * `dynamic: true` and `unknown` input.
   * @defaultValue none: every tool is untyped
   */
  readonly definitions?: Definitions;
}

/**
 * What a failed call returns to the model through the AI SDK: the run's structured error.
 *
 * @public
 */
export interface AiSdkToolError {
  /** The error, with code, message, hint and issues. */
  readonly error: ToolCallErrorInfo;
}

/**
 * What a typed tool's `execute` returns for a handler returning `Output`.
 *
 * @public
 */
export type AiSdkToolOutput<Output> =
  | (Awaited<Output> extends ToolContent ? AiSdkContentOutput : Awaited<Output>)
  | AiSdkContentOutput
  | AiSdkToolError;

/**
 * The typed part of the `ToolSet`: one AI SDK tool per definition, with its input and output types.
 *
 * @public
 */
export type AiSdkTypedToolSet<Definitions extends AiSdkToolDefinitions> = {
  -readonly [Name in keyof Definitions & string]: Definitions[Name] extends ToolDefinition<infer Input, infer Output>
    ? Tool<Input, AiSdkToolOutput<Output>>
    : Tool<unknown, unknown>;
};

/**
 * The run as AI SDK parts: a `ToolSet` and a `prepareStep` that keeps the step in line with the run.
 *
 * @public
 */
export interface AiSdkTools<Tools extends ToolSet = ToolSet> {
  /** Every tool the run may ever see (core and deferred), each executing through `run.call()`. */
  readonly tools: Tools;
  /**
   * Prepares every step: sets `activeTools` to the run's current definitions, so a tool activated
   * by `find_tool` in step N is callable in step N+1 of the same loop, and puts the run's index
   * (`run.systemPromptIndex()`, the tools a listing run names and reaches through `toolbox`) in a
   * system message at the head of the step's messages, after your own `system`.
   */
  readonly prepareStep: (options: { readonly messages: ModelMessage[] }) => {
    activeTools: (keyof Tools & string)[];
    messages?: ModelMessage[];
  };
  /** The names the model may call now (what `prepareStep` sends). */
  activeTools(): string[];
}

/**
 * Turns a run into AI SDK (v6) tools. Build it for each `generateText` / `streamText` call:
 * tools registered later (an MCP server connected mid-run) join the next call. Pass `prepareStep`
 * too: it keeps the active tools in step with the run and carries the run's index into the prompt.
 *
 * A rich result (`toolContent`) reaches the model as `content` with `image-data` / `file-data`
 * parts (`media: false` sends text lines instead, for models without vision); failures go as
 * `error-json`; an output JSON cannot hold (a BigInt, a circular object) is made safe first.
 *
 * @example
 * ```ts
 * const { tools, prepareStep } = createAiSdkTools(run, { definitions: { read_note: readNote } });
 * const result = await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(10), prompt });
 * ```
 * @public
 */
export function createAiSdkTools<const Definitions extends AiSdkToolDefinitions = Record<never, AnyToolDefinition>>(
  run: Run,
  options: AiSdkToolsOptions<Definitions> = {},
): AiSdkTools<[keyof Definitions] extends [never] ? ToolSet : AiSdkTypedToolSet<Definitions>> {
  // Read once: every result of the set is sent with the limits checked here.
  const media = readMediaOptions(options, "createAiSdkTools");
  // An unknown flow ("ai_sdk", "sdk") fell back to the broker: approvals the host meant to answer
  // in the SDK's own flow waited on a broker nobody watched.
  const flow = checkChoiceOption(options.approvalFlow, "approvalFlow", ["broker", "ai-sdk"], "createAiSdkTools") ?? "broker";
  const typed = typedNames(options.definitions);
  const tools: ToolSet = {};
  const current = currentDescriptors(run);
  // The provider call ids of each model step's calls, across every tool of this set. The SDK hands
  // every call of one step the same `messages` array (a new one per step and per conversation), so
  // it keys the step: two conversations on one tool set, or two steps, may each use `call_0`.
  const steps: StepCallIds = new WeakMap();
  for (const descriptor of run.availableTools()) {
    // Defined, not assigned: a tool named "__proto__" would otherwise set the set's prototype and
    // be missing from it while `activeTools` still named it.
    Object.defineProperty(tools, descriptor.name, {
      value: toAiSdkTool(
        run,
        descriptor,
        current,
        flow,
        media,
        options.definitions === undefined || typed.has(descriptor.name),
        steps,
      ),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const activeTools = () =>
    run
      .definitions()
      .map((descriptor) => descriptor.name)
      .filter((name) => Object.hasOwn(tools, name));
  return {
    tools,
    activeTools,
    prepareStep: ({ messages }) => {
      const index = run.systemPromptIndex();
      const active = activeTools();
      return index === undefined
        ? { activeTools: active }
        : { activeTools: active, messages: [{ role: "system", content: index }, ...messages] };
    },
  } as AiSdkTools as never;
}

function typedNames(definitions: AiSdkToolDefinitions | undefined): Set<string> {
  const names = new Set<string>();
  for (const [key, definition] of Object.entries(definitions ?? {})) {
    if (definition?.name !== key) {
      throw new ConfigurationError(
        "invalid_option",
        `definitions.${key} must be the definition of the tool named ${JSON.stringify(key)}, got ${JSON.stringify(definition?.name)}.`,
        { data: { field: `definitions.${key}`, value: definition?.name } },
      );
    }
    names.add(key);
  }
  return names;
}

/**
 * The run's current descriptor of a tool it sends, by name: a tool updated on the registry
 * (`handle.update()`, an MCP server's `list_changed`) while a loop runs is sent with its new
 * description and schema from the next step on, as `run.call()` validates against the new schema.
 */
function currentDescriptors(run: Run): (name: string) => ToolDescriptor | undefined {
  // `definitions()` returns the same array until the tool set or the activations change.
  let seen: readonly ToolDescriptor[] | undefined;
  let byName = new Map<string, ToolDescriptor>();
  return (name) => {
    const definitions = run.definitions();
    if (definitions !== seen) {
      seen = definitions;
      byName = new Map(definitions.map((descriptor) => [descriptor.name, descriptor]));
    }
    return byName.get(name);
  };
}

/** The call ids of each model step, keyed by the `messages` array the SDK gives that step's calls. */
type StepCallIds = WeakMap<object, Set<string>>;

/** The ids of `messages`' step so far (the set is made at the step's first call). */
function stepIds(steps: StepCallIds, messages: object): Set<string> {
  let ids = steps.get(messages);
  if (ids === undefined) {
    ids = new Set();
    steps.set(messages, ids);
  }
  return ids;
}

function toAiSdkTool(
  run: Run,
  descriptor: ToolDescriptor,
  current: (name: string) => ToolDescriptor | undefined,
  flow: AiSdkApprovalFlow,
  media: ToolResultMediaOptions,
  isStatic: boolean,
  steps: StepCallIds,
): Tool {
  const needsApproval = flow === "ai-sdk" && approvalRequiredBy(run.permissions.approval, descriptor) !== undefined;
  // Failures are told apart by identity: a handler may well return an `{ error }` object of its own.
  const failures = new WeakSet<object>();
  const parts = {
    description: descriptor.description,
    // Validation happens in run.call(), whose errors name the fields; the SDK only forwards input.
    inputSchema: jsonSchema<unknown>(descriptor.inputSchema as JsonSchema as Parameters<typeof jsonSchema>[0]),
    // A function, not `true`: it notes the definition the request is made for (see approvedTools).
    ...(needsApproval
      ? {
          needsApproval: (_input: unknown, { toolCallId, messages }: { toolCallId: string; messages?: unknown }) => {
            noteRequestedTool(run, descriptor.name, toolCallId, messages);
            return true;
          },
        }
      : {}),
    execute: async (
      input: unknown,
      { toolCallId, abortSignal, messages }: { toolCallId: string; abortSignal?: AbortSignal; messages?: unknown },
    ) => {
      // The SDK runs a step's calls in parallel: a step that carries one id twice ran the tool
      // twice for answers the provider cannot tell apart. The second is answered, not run. A call
      // without the step's `messages` (a host calling `execute` itself) is not checked.
      const step = typeof messages === "object" && messages !== null ? stepIds(steps, messages) : undefined;
      if (step?.has(toolCallId) === true) {
        const output = executeOutput(duplicateCallIdResult(descriptor.name, toolCallId), media);
        failures.add(output as object);
        return output;
      }
      step?.add(toolCallId);
      // The run will not ask again: the call must be the one the host was shown.
      const mismatch = needsApproval ? approvalMismatch(messages, toolCallId) : undefined;
      if (mismatch !== undefined) {
        const output = executeOutput(mismatchedApprovalResult(descriptor.name, toolCallId, mismatch), media);
        failures.add(output as object);
        return output;
      }
      const result = await callSafely(run, descriptor.name, input, {
        callId: toolCallId,
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
        ...(needsApproval ? { approved: true, ...requestedToolOption(run, descriptor.name, toolCallId) } : {}),
      });
      const output = executeOutput(result, media);
      if (!result.ok) failures.add(output as object);
      return output;
    },
    toModelOutput: ({ output }: { output: unknown }) =>
      toModelOutput(output, typeof output === "object" && output !== null && failures.has(output)) as never,
  };
  const made = isStatic ? tool<unknown, unknown>(parts) : dynamicTool(parts);
  // The SDK reads both before every step: getters send what the run validates against now (the
  // values above stay for a tool that is not sent now: the SDK does not read them then).
  const schemas = new WeakMap<ToolDescriptor, Tool["inputSchema"]>();
  const latest = () => current(descriptor.name) ?? descriptor;
  Object.defineProperties(made, {
    description: { get: () => latest().description, enumerable: true, configurable: true },
    inputSchema: {
      get: () => {
        const now = latest();
        let schema = schemas.get(now);
        if (schema === undefined) {
          schema = jsonSchema<unknown>(now.inputSchema as JsonSchema as Parameters<typeof jsonSchema>[0]);
          schemas.set(now, schema);
        }
        return schema;
      },
      enumerable: true,
      configurable: true,
    },
  });
  return made;
}
