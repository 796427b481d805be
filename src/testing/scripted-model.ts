import { CatalogError } from "agent-tool-catalog";
import { countOf } from "../errors/count-of.js";
import type { LoopModel, ModelRequest, ModelTurn } from "./model-turn.js";

/**
 * One expected turn of a {@link ScriptedModel}.
 *
 * @public
 */
export interface ScriptedStep {
  /** Tools that must be visible at this turn. */
  readonly expectVisible?: readonly string[];
  /** Tools that must not be visible at this turn. */
  readonly expectHidden?: readonly string[];
  /** Any other check of the request; throw to fail. */
  readonly check?: (request: ModelRequest) => void;
  /** The answer: fixed, or computed from the request (e.g. from the last tool result). */
  readonly respond: ModelTurn | ((request: ModelRequest) => ModelTurn);
}

/**
 * Thrown when a conversation does not follow the script.
 *
 * @public
 */
export class ScriptMismatchError extends CatalogError {
  constructor(message: string, data: Record<string, unknown> = {}) {
    super("script_mismatch", message, { data });
    this.name = "ScriptMismatchError";
  }
}

/**
 * A fake model that plays a list of expected turns. It fails on a turn nobody scripted and, in
 * {@link ScriptedModel.assertDone}, on scripted turns that never came: a test cannot pass by
 * stopping early.
 * @public
 */
export class ScriptedModel implements LoopModel {
  private readonly steps: readonly ScriptedStep[];
  private position = 0;

  constructor(steps: readonly ScriptedStep[]) {
    this.steps = steps;
  }

  /** Steps not played yet. */
  get remaining(): number {
    return this.steps.length - this.position;
  }

  /** Plays the next step after checking its expectations. */
  respond(request: ModelRequest): ModelTurn {
    const step = this.steps[this.position];
    if (step === undefined) {
      throw new ScriptMismatchError(
        `Unexpected turn ${request.turn}: the script has only ${countOf(this.steps.length, "step")}.`,
        {
          turn: request.turn,
        },
      );
    }
    this.position++;
    const visible = new Set(request.tools.map((tool) => tool.name));
    const missing = (step.expectVisible ?? []).filter((name) => !visible.has(name));
    if (missing.length > 0) {
      throw new ScriptMismatchError(
        `Turn ${request.turn}: expected visible tools ${missing.join(", ")}; visible were ${[...visible].join(", ")}.`,
        {
          turn: request.turn,
          missing,
        },
      );
    }
    const unexpected = (step.expectHidden ?? []).filter((name) => visible.has(name));
    if (unexpected.length > 0) {
      throw new ScriptMismatchError(`Turn ${request.turn}: expected ${unexpected.join(", ")} to be hidden, but they were sent.`, {
        turn: request.turn,
        unexpected,
      });
    }
    step.check?.(request);
    return typeof step.respond === "function" ? step.respond(request) : step.respond;
  }

  /** Throws when scripted steps were never played. */
  assertDone(): void {
    if (this.remaining > 0) {
      throw new ScriptMismatchError(
        `${countOf(this.remaining, "scripted step")} ${this.remaining === 1 ? "was" : "were"} never played (stopped after ${this.position}).`,
        {
          played: this.position,
          remaining: this.remaining,
        },
      );
    }
  }
}
