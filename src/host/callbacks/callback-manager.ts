/**
 * Where a delayed callback is in its life.
 *
 * @public
 */
export type DelayedCallbackStatus = "pending" | "fired" | "failed" | "cancelled";

/**
 * What scheduling a callback needs.
 *
 * @public
 */
export interface DelayedCallbackRequest {
  /** The conversation to re-invoke. */
  readonly conversationId: string;
  /** Seconds from now. */
  readonly delaySeconds: number;
  /** What the agent should do when it is woken, as the new turn's message. */
  readonly message: string;
}

/**
 * A delayed callback.
 *
 * @public
 */
export interface DelayedCallback {
  /** Its id, e.g. `cb_1a2b3c4d5e6f`. */
  readonly id: string;
  /** Its conversation. */
  readonly conversationId: string;
  /** The message for the woken agent. */
  readonly message: string;
  /** When it was scheduled (ms since the epoch). */
  readonly createdAt: number;
  /** When it fires. */
  readonly dueAt: number;
  /** Its status. */
  readonly status: DelayedCallbackStatus;
  /** Why firing failed. */
  readonly error?: string | undefined;
}

/**
 * One-shot delayed callbacks that re-invoke the agent in its conversation. Methods reject with a
 * `ToolError` for mistakes the model can fix (a delay out of range, too many pending, an
 * unknown id). {@link InProcessCallbackManager} is the in-process default.
 * @public
 */
export interface CallbackManager {
  /** Schedules a callback. */
  schedule(request: DelayedCallbackRequest): Promise<DelayedCallback>;
  /** Cancels a pending callback of this conversation. */
  cancel(conversationId: string, id: string): Promise<DelayedCallback>;
  /** The conversation's pending callbacks, soonest first. */
  list(conversationId: string): Promise<DelayedCallback[]>;
}
