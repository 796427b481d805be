/**
 * Shared set-up of the sandbox escape attempts: a workspace and an "outside" directory (both real
 * directories under the host's /tmp), and runs with the real tools (bash, ls, glob, grep, read,
 * download) under a chosen sandbox scope, called through the public `run.call`.
 */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { createDownloadTool, type DownloadToolOptions } from "../../../src/tools/fs/download-tool.js";
import { createGlobTool } from "../../../src/tools/fs/glob-tool.js";
import { createGrepTool, type GrepToolOptions } from "../../../src/tools/fs/grep-tool.js";
import { createLsTool } from "../../../src/tools/fs/ls-tool.js";
import { createReadTool } from "../../../src/tools/fs/read-tool.js";
import type { BubblewrapSandbox } from "../../../src/tools/sandbox/bubblewrap-sandbox.js";
import { type BashToolOptions, createBashTool } from "../../../src/tools/shell/bash-tool.js";

/** A workspace and a directory outside it, removed by `dispose`. */
export interface Playground {
  readonly workspace: string;
  readonly outside: string;
  dispose(): Promise<void>;
}

/** Makes a fresh workspace and outside directory (real paths). */
export async function playground(): Promise<Playground> {
  const workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-escape-ws-")));
  const outside = await realpath(await mkdtemp(path.join(tmpdir(), "atc-escape-out-")));
  return {
    workspace,
    outside,
    dispose: async () => {
      await rm(workspace, { recursive: true, force: true });
      await rm(outside, { recursive: true, force: true });
    },
  };
}

/** Host options of the tools in an attack run. */
export interface AttackRunOptions {
  readonly bash?: BashToolOptions;
  readonly grep?: GrepToolOptions;
  readonly download?: DownloadToolOptions;
}

/** A run over `workspace` with bash and the read-only file tools, under `sandbox`. */
export function attackRun(workspace: string, sandbox: SandboxScope, options: AttackRunOptions = {}): Run {
  const tools = [
    createBashTool(options.bash ?? {}),
    createLsTool(),
    createGlobTool(),
    createGrepTool(options.grep ?? {}),
    createReadTool(),
    createDownloadTool(options.download ?? {}),
  ];
  return createRegistry({ tools }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
}

/** What a bash call printed, parsed from the tool's result. */
export interface ShellOutcome {
  readonly status: string;
  readonly sandbox: string;
  readonly stdout: string;
  readonly stderr: string;
  readonly text: string;
}

/** Runs `command` with the bash tool; a tool error becomes an outcome with status `error:<code>`. */
export async function sh(run: Run, command: string, extra: Record<string, unknown> = {}): Promise<ShellOutcome> {
  return shellOutcome(await run.call("bash", { command, ...extra }));
}

/** A bash call's result parsed as {@link sh} does: for a result a host child printed as JSON. */
export function shellOutcome(result: ToolCallResult): ShellOutcome {
  if (!result.ok)
    return { status: `error:${result.error.code}`, sandbox: "", stdout: "", stderr: "", text: result.error.message };
  const text = String(result.output);
  const header = text.split("\n")[0] ?? "";
  const stdout = /(?:^|\n)stdout:\n([\s\S]*?)(?=\nstderr:\n|\n\[|$)/.exec(text)?.[1] ?? "";
  const stderr = /(?:^|\n)stderr:\n([\s\S]*?)(?=\n\[|$)/.exec(text)?.[1] ?? "";
  return { status: header.split(" · ")[0] ?? "", sandbox: header.split(" · sandbox ")[1] ?? "", stdout, stderr, text };
}

/** The text of an ok result, or `error:<code>`. */
export function outcome(result: ToolCallResult): string {
  return result.ok ? String(result.output) : `error:${result.error.code}`;
}

/** Single-quotes a string for bash. */
export function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

/**
 * Runs `command` with bash straight in `sandbox` (the workspace as working directory), below the
 * tools: its stdout and stderr together, or `failed to start: <why>` when the sandbox refused it.
 */
export async function spawnIn(sandbox: BubblewrapSandbox, command: string): Promise<string> {
  const child = sandbox.spawn({ command: "/bin/bash", args: ["-c", command], cwd: sandbox.workspace ?? "/" });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = await child.exited;
  return exit.error === undefined ? output : `failed to start: ${exit.error.message}`;
}
