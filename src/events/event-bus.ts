import { settleThenable } from "../tool/settle-thenable.js";
/**
 * A listener of one event type. It may be async: a rejected promise is reported like a throw.
 *
 * @public
 */
export type EventListener<Payload> = (payload: Payload) => void;

/**
 * Options of an {@link EventBus}.
 *
 * @public
 */
export interface EventBusOptions {
  /**
   * Called when a listener throws or its returned promise rejects. The bus never swallows such
   * an error silently. If this function throws, that error is rethrown on a later tick: never into
   * the code that emitted the event, whose work (a tool call that already ran, a registration
   * already made) must still report what it did.
   * @defaultValue rethrows the error on a later tick (it surfaces as an uncaught exception)
   */
  readonly onListenerError?: (error: unknown, type: string) => void;
}

/**
 * A small typed event bus. Listeners run synchronously in subscription order; one that throws
 * does not stop the others or the tool call that emitted the event.
 *
 * @typeParam Events - map from event type to payload type
 * @public
 */
export class EventBus<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<EventListener<never>>>();
  private readonly onListenerError: (error: unknown, type: string) => void;

  constructor(options: EventBusOptions = {}) {
    this.onListenerError =
      options.onListenerError ??
      ((error) => {
        queueMicrotask(() => {
          throw error;
        });
      });
  }

  /** Subscribes to one event type; returns the function that unsubscribes. */
  on<Type extends keyof Events>(type: Type, listener: EventListener<Events[Type]>): () => void {
    let set = this.listeners.get(type);
    if (set === undefined) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(listener as EventListener<never>);
    return () => {
      set.delete(listener as EventListener<never>);
    };
  }

  /** True when anyone listens to `type` (lets emitters skip building payloads). */
  hasListeners(type: keyof Events): boolean {
    const set = this.listeners.get(type);
    return set !== undefined && set.size > 0;
  }

  /** Delivers `payload` to every listener of `type`. */
  emit<Type extends keyof Events>(type: Type, payload: Events[Type]): void {
    const set = this.listeners.get(type);
    if (set === undefined) return;
    for (const listener of [...set]) {
      try {
        const returned: unknown = (listener as EventListener<Events[Type]>)(payload);
        // An async listener's rejection is a listener error too: without this it would be an
        // unhandled rejection that `onListenerError` never sees.
        // Followed level by level: a thenable resolving to itself would otherwise starve every timer.
        if ((typeof returned === "object" && returned !== null) || typeof returned === "function") {
          settleThenable(returned).catch((error: unknown) => this.reportListenerError(error, String(type)));
        }
      } catch (error) {
        // Through the same guard as a rejection: a throwing hook here once escaped emit() and
        // turned a tool call that had run (a write on disk) into `internal_error`.
        this.reportListenerError(error, String(type));
      }
    }
  }

  /**
   * Reports a listener's error. emit() never throws: what emitted the event has already
   * happened, so a throwing hook's error goes to a later tick instead of the emitter.
   */
  private reportListenerError(error: unknown, type: string): void {
    try {
      this.onListenerError(error, type);
    } catch (thrown) {
      queueMicrotask(() => {
        throw thrown;
      });
    }
  }
}
