import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  type CreateRunOptions,
  createRegistry,
  type Registry,
  type Run,
  type ToolCallErrorInfo,
  type ToolCallResult,
  type ToolGroup,
} from "agent-tool-catalog";
import type { AgentPromptRequest, AgentPromptResult, AgentRunner } from "../../../src/host/index.js";

/** A registry of the groups and a "full" run with every deferred tool activated. */
export function hostRun(groups: readonly ToolGroup[], options: CreateRunOptions = {}): { registry: Registry; run: Run } {
  const registry = createRegistry({ groups });
  const run = registry.createRun({ profile: "full", ...options });
  run.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
  return { registry, run };
}

/** The names a registry holds besides find_tool and toolbox. */
export function toolNames(registry: Registry): string[] {
  return registry
    .list()
    .map((tool) => tool.name)
    .filter((name) => name !== "find_tool" && name !== "toolbox");
}

/** The output of a successful call; fails the test with the error otherwise. */
export function output(result: ToolCallResult): unknown {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output;
}

/** The output of a successful call that returns text. */
export function text(result: ToolCallResult): string {
  const value = output(result);
  if (typeof value !== "string") throw new Error(`expected text, got ${JSON.stringify(value)}`);
  return value;
}

/** The output of a successful call that returns an object. */
export function record(result: ToolCallResult): Record<string, unknown> {
  const value = output(result);
  if (typeof value !== "object" || value === null) throw new Error(`expected an object, got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}

/** The error of a failed call; fails the test on success. */
export function failure(result: ToolCallResult): ToolCallErrorInfo {
  if (result.ok) throw new Error(`expected failure, got ${JSON.stringify(result.output)}`);
  return result.error;
}

/** A fresh temporary directory and its cleanup. */
export async function temporaryDirectory(prefix: string): Promise<{ path: string; remove(): Promise<void> }> {
  const directory = await mkdtemp(path.join(tmpdir(), prefix));
  return { path: directory, remove: () => rm(directory, { recursive: true, force: true }) };
}

/** A real HTTP server on 127.0.0.1 and an ephemeral port. */
export async function startServer(
  handler: (request: IncomingMessage, response: ServerResponse, body: string) => void,
): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => handler(request, response, Buffer.concat(chunks).toString("utf8")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}

/** A scripted agent runner: a function stands in for the model, and every request is recorded. */
export class ScriptedRunner implements AgentRunner {
  readonly requests: AgentPromptRequest[] = [];
  private readonly script: (request: AgentPromptRequest) => AgentPromptResult | Promise<AgentPromptResult>;

  constructor(script: (request: AgentPromptRequest) => AgentPromptResult | Promise<AgentPromptResult>) {
    this.script = script;
  }

  async runPrompt(request: AgentPromptRequest): Promise<AgentPromptResult> {
    this.requests.push(request);
    return this.script(request);
  }
}

/** A promise with its resolve and reject, to finish fake work when a test says so. */
export function deferred<Value>(): { promise: Promise<Value>; resolve(value: Value): void; reject(error: unknown): void } {
  let resolve: (value: Value) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<Value>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A promise that rejects when `signal` aborts: a fake task that honours cancellation. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
