/**
 * A listener of one event type.
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
   * Called when a listener throws. The bus never swallows such an error silently.
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
        (listener as EventListener<Events[Type]>)(payload);
      } catch (error) {
        this.onListenerError(error, String(type));
      }
    }
  }
}
