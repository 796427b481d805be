import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { type Implementation, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ToolError } from "agent-tool-catalog";
import { showControlCharacters } from "../tools/shell/visible-control-characters.js";
import { loadMcpClient } from "./load-mcp-client.js";
import { clientCapabilities, installClientHandlers, type McpClientHandlers } from "./mcp-client-handlers.js";
import { clip, closedError, describeMcpFailure, McpConnectionError, unavailableError } from "./mcp-errors.js";
import type { ResolvedMcpServerConfig } from "./resolve-mcp-server-config.js";
import type { McpTransportDriver, McpTransportInstance } from "./transports/mcp-transport.js";
import { isTransportOverflow } from "./transports/transport-overflow.js";

/**
 * Where a connection stands.
 *
 * @public
 */
export type McpConnectionState = "idle" | "connecting" | "connected" | "disconnected" | "closed";

/** What a connection tells its owner. */
export interface McpConnectionListener {
  /** The server sent `notifications/tools/list_changed`. */
  toolsChanged(): void;
  /** A connection was established; `reconnect` is false for the first one. */
  connected(reconnect: boolean): void;
  /** The connection was lost (not closed by the host). */
  disconnected(reason: string): void;
}

/** Options of one request. */
export interface McpRequestOptions {
  /** Cancels the request (the server gets `notifications/cancelled`). */
  readonly signal?: AbortSignal | undefined;
  /** What is asked, for error messages, e.g. `tool "search"`. */
  readonly subject: string;
}

const PING_TIMEOUT_MS = 5000;
const TERMINATE_TIMEOUT_MS = 1000;

/**
 * One server's client, transport-agnostic: it connects lazily, notices a lost or stuck server,
 * and reconnects on the next request (one attempt per request, never a loop). It never retries a
 * request itself: a tool call may not be safe to repeat.
 */
export class McpConnection {
  private client: Client | undefined;
  private instance: McpTransportInstance | undefined;
  private opening: Promise<Client> | undefined;
  private suspect = false;
  private connections = 0;
  private currentState: McpConnectionState = "idle";
  private firstTransportError: string | undefined;
  // The client `firstTransportError` belongs to: an abandoned connection's transport keeps
  // reporting (a broken pipe, the rest of an oversized line) after the next one started.
  private newestClient: Client | undefined;

  constructor(
    private readonly server: ResolvedMcpServerConfig,
    private readonly driver: McpTransportDriver,
    private readonly clientInfo: Implementation,
    private readonly listener: McpConnectionListener,
    private readonly handlers: McpClientHandlers = {},
    private readonly runId: string | undefined = undefined,
  ) {}

  /** The current state. */
  get state(): McpConnectionState {
    return this.currentState;
  }

  /** The server process id while connected (stdio). */
  get pid(): number | undefined {
    return this.instance?.pid();
  }

  /** The SDK client while connected. */
  get connectedClient(): Client | undefined {
    return this.client;
  }

  /**
   * The tail of the server's stderr and the first transport error, for error messages, with
   * control characters shown as visible stand-ins: a parse error quotes the server's own bad
   * stdout line, and these messages reach the host's logs and console, where an escape sequence
   * would act. Stand-ins are idempotent, so a transport that already shows them is not escaped twice.
   */
  diagnostics(): string {
    return showControlCharacters(
      [this.instance?.diagnostics() ?? "", this.firstTransportError ?? ""].filter((part) => part !== "").join("\n"),
    );
  }

  /**
   * Connects if not connected (one attempt, shared by concurrent callers).
   * @throws McpConnectionError when the server cannot be reached.
   */
  open(): Promise<Client> {
    if (this.currentState === "closed") return Promise.reject(closedError(this.server.name));
    if (this.client !== undefined) return Promise.resolve(this.client);
    this.opening ??= this.connect().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /**
   * Runs one request on a healthy connection and turns every failure into a `ToolError` for the
   * model. A server that timed out or failed oddly is pinged before the next request and
   * restarted when the ping fails.
   */
  async request<Result>(
    options: McpRequestOptions,
    send: (client: Client, requestOptions: RequestOptions) => Promise<Result>,
  ): Promise<Result> {
    const { timeoutMs } = this.server;
    // The SDK adds an abort listener to the signal of every request and never removes it. The
    // caller's signal is often the run's, which lives for the whole conversation: handing it over
    // would keep one listener (and its closure) per call until the run ends. Each request gets its
    // own signal instead, linked to the caller's by one listener that is removed when it settles.
    const link = linkSignal(options.signal);
    const requestOptions: RequestOptions = { timeout: timeoutMs, maxTotalTimeout: timeoutMs, signal: link.signal };
    try {
      // At most two attempts, and the second only when the first never reached the server.
      for (let attempt = 0; ; attempt++) {
        const client = await this.ready();
        // Started before the SDK's timer of the same length, so it fires first: when the SDK's
        // timeout rejects, this says so; a server's error worded as that timeout finds it unset.
        const deadline = { passed: false };
        const timer = setTimeout(() => {
          deadline.passed = true;
        }, timeoutMs);
        try {
          return await send(client, requestOptions);
        } catch (error) {
          if (link.signal.aborted) throw error;
          if (attempt === 0 && this.instance?.sessionExpired?.(error) === true) {
            await this.dispose();
            continue;
          }
          throw this.failure(error, options.subject, client, deadline.passed);
        } finally {
          clearTimeout(timer);
        }
      }
    } finally {
      link.unlink();
    }
  }

  /** Closes for good: ends the session, stops the process, waits for it. */
  async close(): Promise<void> {
    if (this.currentState === "closed") return;
    this.currentState = "closed";
    await this.opening?.catch(() => undefined);
    await this.dispose();
  }

  private failure(error: unknown, subject: string, client: Client, deadlinePassed: boolean): ToolError {
    if (this.isClosed()) return closedError(this.server.name);
    const failure = describeMcpFailure(error, {
      server: this.server.name,
      subject,
      timeoutMs: this.server.timeoutMs,
      diagnostics: this.diagnostics(),
      connectionLost: this.client !== client,
      transportError: this.firstTransportError,
      deadlinePassed,
    });
    if (failure.suspect) this.suspect = true;
    return failure.error;
  }

  private async ready(): Promise<Client> {
    if (this.client !== undefined && this.suspect) {
      this.suspect = false;
      const alive = await this.client.ping({ timeout: Math.min(PING_TIMEOUT_MS, this.server.timeoutMs) }).then(
        () => true,
        () => false,
      );
      if (!alive) await this.dispose();
    }
    try {
      return await this.open();
    } catch (error) {
      if (this.currentState === "closed") throw closedError(this.server.name);
      throw unavailableError(this.server.name, error);
    }
  }

  private async connect(): Promise<Client> {
    this.currentState = "connecting";
    this.firstTransportError = undefined;
    const { Client } = await loadMcpClient();
    // Closed while the SDK's client loaded: start no transport (close() waits for this attempt).
    if (this.isClosed()) throw closedError(this.server.name);
    const instance = this.driver.create();
    const client = new Client(this.clientInfo, { capabilities: clientCapabilities(this.handlers) });
    installClientHandlers(client, this.handlers, { server: this.server.name, runId: this.runId });
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (this.client === client) this.listener.toolsChanged();
    });
    this.newestClient = client;
    client.onerror = (error) => {
      if (this.newestClient !== client) return;
      // The first error explains the rest (an overflow is followed by broken JSON of the same
      // message), except that an overflow always wins: it is what ended the connection, even when
      // a line spliced from a reply and the endless output failed to parse before it.
      if (this.firstTransportError === undefined || isTransportOverflow(error.message))
        this.firstTransportError = clip(error.message, 500);
      // An oversized message cannot be answered any more (an HTTP transport would leave the
      // request waiting for its timeout): end the connection, so it fails now, and is renewed.
      if (isTransportOverflow(error.message)) void client.close().catch(() => undefined);
    };
    client.onclose = () => this.lost(client);
    try {
      await client.connect(instance.transport, { timeout: this.server.connectTimeoutMs });
    } catch (error) {
      const diagnostics = instance.diagnostics();
      await client.close().catch(() => undefined);
      if (!this.isClosed()) this.currentState = "disconnected";
      const reason = error instanceof Error ? error.message : String(error);
      throw new McpConnectionError(
        `Could not connect to MCP server "${this.server.name}" (${this.driver.kind}): ${clip(reason, 500)}${diagnostics === "" ? "" : `\n${clip(diagnostics, 1000)}`}`,
        { cause: error, data: { server: this.server.name, transport: this.driver.kind, diagnostics } },
      );
    }
    if (this.isClosed()) {
      await client.close().catch(() => undefined);
      throw closedError(this.server.name);
    }
    this.client = client;
    this.instance = instance;
    this.currentState = "connected";
    this.suspect = false;
    this.listener.connected(this.connections++ > 0);
    return client;
  }

  // A method, so the compiler does not narrow the state across awaits.
  private isClosed(): boolean {
    return this.currentState === "closed";
  }

  private lost(client: Client): void {
    if (this.client !== client || this.currentState === "closed") return;
    this.client = undefined;
    this.currentState = "disconnected";
    const diagnostics = this.instance?.diagnostics() ?? "";
    this.listener.disconnected(diagnostics === "" ? "the connection closed" : `the connection closed: ${clip(diagnostics, 500)}`);
  }

  private async dispose(): Promise<void> {
    const client = this.client;
    const instance = this.instance;
    this.client = undefined;
    if (this.currentState !== "closed") this.currentState = "disconnected";
    if (client === undefined) return;
    if (instance?.terminate !== undefined) {
      const timer = new Promise<void>((resolve) => setTimeout(resolve, TERMINATE_TIMEOUT_MS).unref());
      await Promise.race([instance.terminate().catch(() => undefined), timer]);
    }
    await client.close().catch(() => undefined);
  }
}

/** A signal of one request that follows `parent`, and the way to detach it again. */
interface LinkedSignal {
  readonly signal: AbortSignal;
  unlink(): void;
}

// One listener per parent signal while requests are in flight, whatever their number: ten
// concurrent calls on one run would otherwise trip Node's MaxListenersExceededWarning. The
// listener goes when the last request settles, so nothing stays on a signal that outlives them.
interface Followers {
  readonly controllers: Set<AbortController>;
  readonly listener: () => void;
}

const followersOf = new WeakMap<AbortSignal, Followers>();

function linkSignal(parent: AbortSignal | undefined): LinkedSignal {
  const controller = new AbortController();
  if (parent === undefined) return { signal: controller.signal, unlink: () => undefined };
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, unlink: () => undefined };
  }
  let followers = followersOf.get(parent);
  if (followers === undefined) {
    const controllers = new Set<AbortController>();
    const listener = () => {
      followersOf.delete(parent);
      for (const each of controllers) each.abort(parent.reason);
      controllers.clear();
    };
    followers = { controllers, listener };
    followersOf.set(parent, followers);
    parent.addEventListener("abort", listener, { once: true });
  }
  const own = followers;
  own.controllers.add(controller);
  return {
    signal: controller.signal,
    unlink: () => {
      if (!own.controllers.delete(controller) || own.controllers.size > 0) return;
      parent.removeEventListener("abort", own.listener);
      if (followersOf.get(parent) === own) followersOf.delete(parent);
    },
  };
}
