import { type ChildProcess, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { PassThrough } from "node:stream";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import { stdioClosingInherited } from "./inherited-descriptors.js";
import { LineFramer } from "./line-framer.js";
import { standInForMalformedResponse } from "./malformed-response.js";
import { killGroup, trackGroup } from "./process-group.js";
import {
  isToolsListChanged,
  isUnheededMethod,
  isUnheededNotification,
  notificationTextMethod,
  TOOLS_LIST_CHANGED,
} from "./unheeded-notification.js";

/** How to start a stdio server. */
export interface ProcessGroupStdioOptions {
  readonly command: string;
  readonly args: readonly string[];
  /** Added to the SDK's small safe default environment. */
  readonly env?: Readonly<Record<string, string>> | undefined;
  readonly cwd?: string | undefined;
  /** Largest single message, bytes; more closes the connection. */
  readonly maxBufferSize: number;
  /** How long the server has to exit after stdin closes, then after SIGTERM, ms. */
  readonly graceMs: number;
}

const GROUPS = process.platform !== "win32";
// How long a server that closed stdout has to exit before the connection is given up.
const OUTPUT_END_GRACE_MS = 200;
// Longest run of message handling before the event loop gets a turn, ms. libuv reads up to 32
// pipe chunks (2 MiB) in one go: 20,000 notifications handled in one block held every other run,
// timer and answer for 150 ms to 1.6 s.
const SLICE_MS = 8;

/**
 * The stdio transport, but the server runs in its own process group and closing ends the whole
 * group: a server that starts helpers (`npx` starts node, which starts a browser, ...) leaves
 * none of them behind. The SDK's transport signals only the process it started. When the server
 * dies on its own, what it started is ended too.
 */
export class ProcessGroupStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  /** The server's stderr; readable before `start` so nothing early is lost. */
  readonly stderr: Readable = new PassThrough();
  private child: ChildProcess | undefined;
  private readonly buffer: LineFramer;
  private closing: Promise<void> | undefined;
  private untrack: () => void = () => undefined;
  private exited: Promise<void> = Promise.resolve();
  private announcedClose = false;
  private broken = false;
  /** Lines received and not handled yet, from `next` on; stdout is paused while there are any. */
  private queue: string[] = [];
  private next = 0;
  private resumeScheduled = false;
  private dropped = 0;
  private toolsChangedInSlice = false;

  constructor(private readonly options: ProcessGroupStdioOptions) {
    this.buffer = new LineFramer(options.maxBufferSize);
  }

  /** Notifications dropped unread because nothing on the host acts on them. */
  get droppedNotifications(): number {
    return this.dropped;
  }

  /** The server's process id (also its group id) once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error("The transport is started already."));
    return new Promise((resolve, reject) => {
      // Only 0-2 reach the server: a descriptor the host inherited without close-on-exec (a
      // supervisor's socket, a log file) would otherwise be open in it, as in every child Node
      // spawns; it gets /dev/null at that number instead (the environment is cut down alike).
      const { stdio, release } = stdioClosingInherited(["pipe", "pipe", "pipe"]);
      let child: ChildProcess;
      try {
        child = spawn(this.options.command, [...this.options.args], {
          env: { ...getDefaultEnvironment(), ...this.options.env },
          stdio,
          shell: false,
          detached: GROUPS,
          windowsHide: true,
          ...(this.options.cwd === undefined ? {} : { cwd: this.options.cwd }),
        });
      } finally {
        release();
      }
      this.child = child;
      this.exited = new Promise((done) => child.once("close", () => done()));
      child.once("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once("spawn", () => {
        if (GROUPS && child.pid !== undefined) this.untrack = trackGroup(child.pid);
        resolve();
      });
      child.once("close", () => this.ended(child));
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.receive(chunk));
      child.stdout?.once("end", () => this.outputEnded());
      child.stderr?.pipe(this.stderr as PassThrough);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.child?.stdin;
      if (stdin === undefined || stdin === null || this.closing !== undefined) {
        reject(new Error("Not connected"));
        return;
      }
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once("drain", resolve);
    });
  }

  close(): Promise<void> {
    this.closing ??= this.stop(true);
    return this.closing;
  }

  /**
   * @param polite - whether the server gets `graceMs` to exit after stdin closes before it is
   * signalled; a server that broke the stream's framing does not (it is signalled at once).
   */
  private async stop(polite: boolean): Promise<void> {
    const child = this.child;
    if (child === undefined) return;
    // Polite first: a server that sees stdin close exits on its own and may clean up.
    try {
      child.stdin?.end();
    } catch {
      // Already closed.
    }
    const exitedInTime =
      polite &&
      (await Promise.race([
        this.exited.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), this.options.graceMs)),
      ]));
    if (!exitedInTime && !GROUPS) child.kill("SIGKILL");
    await this.endGroup(child);
    await this.exited;
    this.buffer.clear();
    this.queue = [];
    this.next = 0;
  }

  private async endGroup(child: ChildProcess): Promise<void> {
    if (!GROUPS || child.pid === undefined) return;
    await killGroup(child.pid, this.options.graceMs);
    this.untrack();
  }

  private ended(child: ChildProcess): void {
    // The server died on its own: what it started must not outlive it.
    if (this.closing === undefined) void this.endGroup(child);
    this.announceClose();
  }

  /**
   * The server closed its stdout: no answer can come any more, even if the process lives on.
   * An exiting server closes stdout first; it gets a moment to exit, so the close reports its
   * stderr, before a server that lingers is treated as gone (else every pending request would
   * wait for its timeout and report `mcp_timeout`).
   */
  private outputEnded(): void {
    if (this.broken || this.closing !== undefined) return;
    setTimeout(() => {
      if (this.announcedClose || this.closing !== undefined) return;
      this.broken = true;
      this.onerror?.(new Error("The server closed its standard output."));
      this.closing ??= this.stop(false);
      this.announceClose();
    }, OUTPUT_END_GRACE_MS).unref();
  }

  /** Tells the client once that the connection is gone (an overflow does so before the exit). */
  private announceClose(): void {
    if (this.announcedClose) return;
    this.announcedClose = true;
    this.onclose?.();
  }

  /**
   * A message over the size limit: the stream can no longer be framed, so the connection is over
   * now, not when the server gets round to exiting. A server that keeps writing one endless line
   * and ignores stdin closing would otherwise hold every pending request until its timeout, which
   * then reports `mcp_timeout` for what was an oversized answer.
   */
  private abandon(error: Error): void {
    this.broken = true;
    this.buffer.clear();
    this.queue = [];
    this.next = 0;
    this.onerror?.(error);
    this.child?.stdout?.removeAllListeners("data");
    this.child?.stdout?.on("error", () => undefined);
    this.child?.stdout?.destroy();
    this.closing ??= this.stop(false);
    this.announceClose();
  }

  private receive(chunk: Buffer): void {
    if (this.broken) return;
    let lines: string[];
    try {
      lines = this.buffer.push(chunk);
    } catch (error) {
      this.abandon(error as Error);
      return;
    }
    if (lines.length === 0) return;
    if (this.next >= this.queue.length) {
      this.queue = lines;
      this.next = 0;
    } else {
      for (const line of lines) this.queue.push(line);
    }
    if (!this.resumeScheduled) this.handleQueued();
  }

  /**
   * Handles queued lines for at most `SLICE_MS`, then pauses stdout and lets the event loop run
   * before going on: a flood delays the server's own messages, never the rest of the host. The
   * paused pipe fills up and holds the server's writes back, so the queue stays small.
   */
  private handleQueued(): void {
    const started = performance.now();
    this.toolsChangedInSlice = false;
    while (this.next < this.queue.length) {
      if (this.broken) return;
      this.handleLine(this.queue[this.next++] as string);
      if ((this.next & 31) === 0 && performance.now() - started > SLICE_MS && this.next < this.queue.length) {
        this.resumeScheduled = true;
        this.child?.stdout?.pause();
        setImmediate(() => {
          this.resumeScheduled = false;
          this.handleQueued();
        });
        return;
      }
    }
    this.queue = [];
    this.next = 0;
    if (!this.broken) this.child?.stdout?.resume();
  }

  private handleLine(line: string): void {
    // A line that is not a JSON-RPC message is reported and skipped; the stream is still framed.
    let message: JSONRPCMessage;
    // Most lines of a flood are known for unheeded notifications without parsing them.
    const method = notificationTextMethod(line);
    if (method !== undefined && isUnheededMethod(method)) {
      this.dropped++;
      return;
    }
    if (method === TOOLS_LIST_CHANGED && this.toolsChangedInSlice) return;
    try {
      const parsed: unknown = JSON.parse(line);
      if (isUnheededNotification(parsed)) {
        this.dropped++;
        return;
      }
      // One `tools/list_changed` per slice says all the others do: the refresh it schedules runs
      // after the slice and lists every change before it.
      if (isToolsListChanged(parsed)) {
        if (this.toolsChangedInSlice) return;
        this.toolsChangedInSlice = true;
      }
      message = JSONRPCMessageSchema.parse(parsed);
    } catch (error) {
      this.onerror?.(error as Error);
      // An answer of the wrong shape still ends its request, as a malformed result.
      const standIn = standInForMalformedResponse(line);
      if (standIn === undefined) return;
      message = standIn;
    }
    this.onmessage?.(message);
  }
}
