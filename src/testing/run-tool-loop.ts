import type { Run } from "agent-tool-catalog";
import { formatToolResult, type ToolCallResult } from "agent-tool-catalog";
import { duplicateCallIdResult } from "../adapters/shared/safe-call.js";
import { checkNumberOption } from "../errors/check-number-option.js";
import type { LoopMessage, LoopModel, ModelToolCall, ModelTurn } from "./model-turn.js";
import { ScriptMismatchError } from "./scripted-model.js";

/**
 * Options of {@link runToolLoop}.
 *
 * @public
 */
export interface RunToolLoopOptions {
  /** The user's message. */
  readonly prompt: string;
  /**
   * Most model turns before the loop fails: a whole number at least 1, or `Infinity`. (`NaN` ran no
   * turn and failed saying the model "was still calling tools after NaN turns".)
   * @defaultValue 20
   */
  readonly maxTurns?: number;
  /** Cancels the loop and the calls in flight. */
  readonly signal?: AbortSignal;
  /**
   * Run the calls of one turn at the same time, as the AI SDK runs the tool calls of a step, instead
   * of one after the other, as the Anthropic and OpenAI adapters' batch runners do. Results are
   * still recorded and fed back in the order of the calls.
   * @defaultValue `false`
   */
  readonly parallelCalls?: boolean;
}

/**
 * One tool call made in a loop, with its result.
 *
 * @public
 */
export interface RecordedCall {
  /** The turn it was made in. */
  readonly turn: number;
  /** The tool name. */
  readonly name: string;
  /** The arguments as the model sent them. */
  readonly args: unknown;
  /** The result. */
  readonly result: ToolCallResult;
}

/**
 * One turn of a loop.
 *
 * @public
 */
export interface RecordedTurn {
  /** The turn's number, from 1. */
  readonly turn: number;
  /** Names of the tools sent this turn. */
  readonly visibleTools: readonly string[];
  /** The model's answer. */
  readonly response: ModelTurn;
  /** The calls made. */
  readonly calls: readonly RecordedCall[];
}

/**
 * What happened in a loop, for assertions.
 *
 * @public
 */
export interface LoopTranscript {
  /** Every turn. */
  readonly turns: readonly RecordedTurn[];
  /** Every call, in order. */
  readonly calls: readonly RecordedCall[];
  /** The conversation, as the model saw it. */
  readonly messages: readonly LoopMessage[];
  /** The text of the last turn. */
  readonly finalText: string | undefined;
}

/**
 * Drives a model against a run until the model answers without tool calls: each turn sends
 * `run.definitions()`, runs the calls through `run.call()` in order (or all at once with
 * `parallelCalls`, as the AI SDK does), and feeds the results back. A second call with an id the
 * turn already used is answered `duplicate_call_id` and not run, as the adapters answer it.
 * A model with `assertDone()` (a {@link ScriptedModel}) is checked at the end.
 * @public
 */
export async function runToolLoop(
  run: Run,
  model: LoopModel & { assertDone?: () => void },
  options: RunToolLoopOptions,
): Promise<LoopTranscript> {
  const maxTurns =
    checkNumberOption(options.maxTurns, "maxTurns", { min: 1, integer: true, infinite: true }, "runToolLoop") ?? 20;
  const messages: LoopMessage[] = [{ role: "user", content: options.prompt }];
  const turns: RecordedTurn[] = [];
  const calls: RecordedCall[] = [];
  for (let turn = 1; turn <= maxTurns; turn++) {
    const tools = run.definitions();
    const response = await model.respond({ turn, tools, messages: [...messages] });
    const toolCalls: ModelToolCall[] = (response.toolCalls ?? []).map((call, index) => ({
      ...call,
      id: call.id ?? `call_${turn}_${index}`,
    }));
    messages.push({ role: "assistant", text: response.text, toolCalls });
    const turnCalls: RecordedCall[] = [];
    // Checked and noted before the call starts, so the parallel mode sees it as the AI SDK does.
    const turnIds = new Set<string>();
    const callOne = async (call: ModelToolCall): Promise<ToolCallResult> => {
      const callId = call.id as string;
      if (turnIds.has(callId)) return duplicateCallIdResult(call.name, callId);
      turnIds.add(callId);
      return run.call(call.name, call.args, options.signal === undefined ? { callId } : { callId, signal: options.signal });
    };
    const results = options.parallelCalls === true ? await Promise.all(toolCalls.map(callOne)) : [];
    for (const [index, call] of toolCalls.entries()) {
      const result = results[index] ?? (await callOne(call));
      messages.push({ role: "tool", callId: call.id as string, name: call.name, content: formatToolResult(result), result });
      turnCalls.push({ turn, name: call.name, args: call.args, result });
    }
    calls.push(...turnCalls);
    turns.push({ turn, visibleTools: tools.map((tool) => tool.name), response, calls: turnCalls });
    if (toolCalls.length === 0) {
      model.assertDone?.();
      return { turns, calls, messages, finalText: response.text };
    }
  }
  throw new ScriptMismatchError(`The model was still calling tools after ${maxTurns} turns.`, { maxTurns });
}
