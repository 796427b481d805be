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
   * Called when a listener throws or its returned promise rejects (a host observer such as an
   * OpenTelemetry span processor that throws, a logger that rejects). The bus never swallows such
   * an error silently, and never lets it reach the code that emitted the event: the tool call
   * that already ran, the registration already made, still reports what it did. If this function
   * throws, that error is rethrown on a later tick (the host asked for it: it surfaces as an
   * uncaught exception).
   * @defaultValue reports the first error of each event type once per bus as a process warning
   * (`process.emitWarning`, type `AgentToolCatalogWarning`, code `ATC_LISTENER_ERROR`; on hosts
   * without `process`, `console.warn`) and no later one of that type, and at most 10
   * such warnings in the whole process (every run has its own
   * bus, so a throwing listener attached to each run's events would otherwise warn once per run):
   * a listener that throws on every call neither crashes the host nor floods its log. Pass a
   * function to see every error.
   */
  readonly onListenerError?: (error: unknown, type: string) => void;
}

/** The warning's type and code a listener's error is reported with by default. */
const LISTENER_ERROR_WARNING = Object.freeze({ type: "AgentToolCatalogWarning", code: "ATC_LISTENER_ERROR" });

/**
 * The most listener-error warnings the default report emits in one process, over all buses;
 * the last says that later ones are not reported.
 */
const MAX_LISTENER_ERROR_WARNINGS = 10;

/**
 * How many default listener-error warnings this process has emitted, shared by every copy of
 * this module (the ESM and CJS builds loaded at once).
 */
const warningsEmitted: { count: number } = (() => {
  const key = Symbol.for("agent-tool-catalog.listener-error-warnings.v1");
  const holder = globalThis as { [key]?: { count: number } };
  holder[key] ??= { count: 0 };
  return holder[key];
})();

/** A listener's error in a few words, without letting a throwing `message` getter escape. */
function describeListenerError(error: unknown): string {
  try {
    if (error instanceof Error) return `${error.name}: ${error.message}`;
    return String(error);
  } catch {
    return "a value that cannot be described";
  }
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
  /** Event types whose listener error the default report has told already. */
  private readonly warnedTypes = new Set<string>();

  constructor(options: EventBusOptions = {}) {
    this.onListenerError = options.onListenerError ?? ((error, type) => this.warnOnce(error, type));
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

  /** The default report: one process warning per event type, never an exception. */
  private warnOnce(error: unknown, type: string): void {
    if (this.warnedTypes.has(type) || warningsEmitted.count >= MAX_LISTENER_ERROR_WARNINGS) return;
    this.warnedTypes.add(type);
    warningsEmitted.count++;
    const last =
      warningsEmitted.count === MAX_LISTENER_ERROR_WARNINGS
        ? ` This is the last such warning of this process (${MAX_LISTENER_ERROR_WARNINGS} reported).`
        : "";
    const message = `A listener of "${type}" threw (${describeListenerError(error)}); the event's emitter went on. Later errors of "${type}" listeners on this bus are not reported: pass onListenerError to see each one.${last}`;
    // Read from globalThis: the root entry runs where there is no `process` too (a browser, a worker).
    const host = (globalThis as { process?: { emitWarning?: (message: string, options: object) => void } }).process;
    try {
      if (typeof host?.emitWarning === "function") host.emitWarning(message, { ...LISTENER_ERROR_WARNING });
      // biome-ignore lint/suspicious/noConsole: the documented channel where Node's warnings are not.
      else console.warn(`${LISTENER_ERROR_WARNING.type} [${LISTENER_ERROR_WARNING.code}]: ${message}`);
    } catch {
      // A warning channel that throws (a patched console) must not turn the report into a crash.
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
