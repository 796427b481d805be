import { ToolError } from "agent-tool-catalog";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { formatWait } from "../../errors/format-wait.js";
import { type Clock, systemClock } from "../shared/clock.js";
import type { QuestionBroker, UserAnswer, UserQuestion } from "./question-broker.js";

/**
 * Options of {@link InMemoryQuestionBroker}.
 *
 * @public
 */
export interface InMemoryQuestionBrokerOptions {
  /** Time source for the timeout. @defaultValue the system clock */
  readonly clock?: Clock;
  /**
   * Unanswered questions fail after this many ms: a number at least 1, or `Infinity` (never). `NaN`
   * re-armed the system clock's timer every millisecond for ever.
   * @defaultValue 600000 (ten minutes)
   */
  readonly timeoutMs?: number;
  /**
   * Told about every new question, e.g. to show it in a UI. When it throws, the question is
   * withdrawn and the call fails with that error.
   */
  readonly onQuestion?: (question: UserQuestion) => void;
}

interface Pending {
  readonly question: UserQuestion;
  readonly resolve: (answer: UserAnswer) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Questions held in memory until the host answers them (`answer(id, ...)`) or dismisses them:
 * the in-process default, like the approval broker, for hosts whose UI lives in the same process.
 * @public
 */
export class InMemoryQuestionBroker implements QuestionBroker {
  private readonly options: InMemoryQuestionBrokerOptions;
  private readonly clock: Clock;
  private readonly waiting = new Map<string, Pending>();

  constructor(options: InMemoryQuestionBrokerOptions = {}) {
    checkNumberOption(options.timeoutMs, "timeoutMs", { min: 1, infinite: true }, "InMemoryQuestionBroker");
    this.options = options;
    this.clock = options.clock ?? systemClock;
  }

  /** {@inheritDoc QuestionBroker.ask} */
  ask(question: UserQuestion, signal: AbortSignal): Promise<UserAnswer> {
    return new Promise<UserAnswer>((resolve, reject) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const timeoutMs = this.options.timeoutMs ?? 600_000;
      const cleanup = () => {
        this.waiting.delete(question.id);
        this.clock.clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        cleanup();
        reject(signal.reason);
      };
      const timer = this.clock.setTimeout(() => {
        cleanup();
        reject(
          new ToolError("question_timeout", `The user did not answer within ${formatWait(timeoutMs)}.`, {
            hint: "Go on with your best judgement and say what you assumed.",
          }),
        );
      }, timeoutMs);
      signal.addEventListener("abort", onAbort, { once: true });
      this.waiting.set(question.id, {
        question,
        resolve: (answer) => {
          cleanup();
          resolve(answer);
        },
        reject: (error) => {
          cleanup();
          reject(error);
        },
      });
      try {
        this.options.onQuestion?.(question);
      } catch (error) {
        // Nobody was told: withdraw the question, so pending() does not list one nobody waits
        // for and its timer does not hold the process for ten minutes.
        cleanup();
        reject(error);
      }
    });
  }

  /** Questions waiting for an answer, oldest first. */
  pending(): UserQuestion[] {
    return [...this.waiting.values()].map((entry) => entry.question);
  }

  /** Answers a question; false when it is not pending (answered, timed out, unknown). */
  answer(id: string, answer: UserAnswer): boolean {
    const entry = this.waiting.get(id);
    entry?.resolve(answer);
    return entry !== undefined;
  }

  /** Dismisses a question: the model is told the user declined to answer. */
  dismiss(id: string, reason = "The user dismissed the question."): boolean {
    const entry = this.waiting.get(id);
    entry?.reject(new ToolError("question_dismissed", reason, { hint: "Do not ask the same question again; go on without it." }));
    return entry !== undefined;
  }
}
