import path from "node:path";
import {
  type AnyToolDefinition,
  BUILTIN_TAG,
  CORE_SET_TAG,
  createRunStorageKey,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolGroup,
} from "agent-tool-catalog";
import type { z } from "zod";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { LineMatcher, MatchDeadlineError } from "../../tools/fs/grep-worker.js";
import { resolveFileScope } from "../../tools/fs/resolve-file-scope.js";
import { createProcessSandbox } from "../../tools/sandbox/create-process-sandbox.js";
import { isDescriptorExhaustion } from "../../tools/sandbox/descriptor-exhaustion.js";
import type { ProcessSandbox, SandboxedProcess } from "../../tools/sandbox/process-sandbox.js";
import type { ResourceLimits } from "../../tools/sandbox/resource-limits.js";
import {
  type RunBudgetPlan,
  type RunResourceLimits,
  reserveRunResources,
  runBudgetPlan,
  runSetupHook,
} from "../../tools/sandbox/run-resource-budget.js";
import { SandboxUnavailableError } from "../../tools/sandbox/sandbox-unavailable-error.js";
import { trustedShellResolver } from "../../tools/shell/trusted-shell.js";
import { showControlCharacters } from "../../tools/shell/visible-control-characters.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { MonitoredProcess } from "./monitored-process.js";

/**
 * Options of {@link monitorToolGroup}; all are the host's, none can be set by the model.
 *
 * @public
 */
export interface MonitorToolOptions {
  /**
   * Offer `monitor` (like `bash`, it runs commands under the run's sandbox and policy).
   * @defaultValue true
   */
  readonly enabled?: boolean;
  /** The root for relative paths when the run has no workspace. @defaultValue `process.cwd()` */
  readonly root?: string;
  /**
   * Bytes of output kept per process (the newest): a whole number at least 1. Never `Infinity`:
   * a background process may print for days (`NaN` kept every byte, silently).
   * @defaultValue 256 KiB
   */
  readonly maxBufferBytes?: number;
  /** Processes one run may have running at once: a whole number at least 1, or `Infinity`. @defaultValue 4 */
  readonly maxProcesses?: number;
  /** Bytes one poll returns at most (the newest): a whole number at least 1, or `Infinity`. @defaultValue 32 KiB */
  readonly maxPollBytes?: number;
  /** Run unsandboxed when the OS sandbox cannot start, instead of refusing. @defaultValue false */
  readonly allowUnsandboxedFallback?: boolean;
  /**
   * The shell, as an absolute path the host vouches for.
   * @defaultValue the trusted `bash` the `bash` tool runs (root-owned, not writable by group or
   *   others, outside the workspace), not a bare `"bash"` looked up on `PATH`
   */
  readonly shell?: string;
  /**
   * Per-command process and memory limits of each background command, as `bash`'s `limits`.
   * @defaultValue 1024 processes, half the host's memory
   */
  readonly limits?: ResourceLimits | false;
  /**
   * The run's totals, shared with the run's `bash` calls (give both tools the same `limits` and
   * `runLimits`; `createDefaultCatalog` gives monitor bash's): a background command holds its
   * share until it ends, so while it runs the run's other commands have that much less. The run
   * has one set of totals, the smallest its tools declared; a command whose `limits` are above
   * them fails at once. `false` for none.
   * @defaultValue 8 × the per-command limits, a 30 s wait
   */
  readonly runLimits?: RunResourceLimits | false;
}

const schemas = lazySchemas((z) => {
  const monitorInput = z.object({
    action: z.enum(["start", "poll", "wait", "stop", "list"]).describe("What to do"),
    command: z.string().min(1).max(100_000).optional().describe("start: the command line (bash -c), e.g. a dev server"),
    cwd: z.string().optional().describe("start: working directory, relative to the workspace"),
    id: z.string().min(1).optional().describe("poll/wait/stop: the id start returned"),
    pattern: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("wait: a regular expression to wait for in a line of new output (default: wait for exit)"),
    timeout_seconds: z.number().min(1).max(600).optional().describe("wait: give up waiting after this long (default 30)"),
  });
  return { monitorInput };
});
type Schemas = ReturnType<typeof schemas>;

type MonitorInput = z.output<Schemas["monitorInput"]>;

interface RunMonitors {
  readonly processes: Map<string, MonitoredProcess>;
  next: number;
  closed: boolean;
}

const RUN_MONITORS = createRunStorageKey<RunMonitors>("host.monitor", () => ({ processes: new Map(), next: 1, closed: false }));

function describeExit(process: MonitoredProcess): string {
  const exit = process.exit;
  if (exit === undefined) return "running";
  if (exit.error !== undefined) return `failed to start: ${exit.error.message}`;
  if (exit.signal !== null) return `killed by ${exit.signal}`;
  return `exited with code ${exit.exitCode}`;
}

/** New output since the last poll (at most `maxBytes`, the newest), moving the cursor. */
function take(process: MonitoredProcess, maxBytes: number): Record<string, unknown> {
  const read = process.output.readFrom(process.cursor);
  process.cursor = read.next;
  const bytes = Buffer.byteLength(read.text);
  const text =
    bytes > maxBytes
      ? Buffer.from(read.text)
          .subarray(bytes - maxBytes)
          .toString("utf8")
      : read.text;
  const skipped = read.dropped + (bytes > maxBytes ? bytes - maxBytes : 0);
  return {
    id: process.id,
    status: describeExit(process),
    // Escape sequences in the output would act on the terminal or log that shows the result.
    output: showControlCharacters(text),
    ...(skipped > 0 ? { skipped_bytes: skipped, note: "Older output was dropped; only the newest is kept." } : {}),
    // Said, not left for the model to guess: the exit came with all the output but what a
    // process holding it open wrote after reading stopped.
    ...(process.outputHeldOpen
      ? {
          output_held_open:
            "A process still held the output open after the command exited and could not be ended; reading stopped 1.25 s after the exit.",
        }
      : {}),
  };
}

/** A quantified group that itself holds a quantifier, such as `(a+)+`: exponential backtracking. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]/;

/** Longest line a pattern is tested against: bounds the work of any one test. */
const MAX_MATCHED_LINE = 2000;

/**
 * How long one match over the kept output may take. The shape check above misses patterns that
 * backtrack as badly without a nested quantifier (`^(a|a)*$`, `\w*\w*\w*\w*\w*$`), so the
 * match runs in a worker thread that is terminated at this deadline: a model's pattern never
 * blocks the host's event loop (every run of the process would freeze with it).
 */
const MATCH_DEADLINE_MS = 2000;

function compilePattern(pattern: string): RegExp {
  // The pattern runs on the host's event loop: refuse the shapes that can backtrack for ever.
  if (NESTED_QUANTIFIER.test(pattern)) {
    throw new ToolError("invalid_input", "pattern nests a quantifier inside a quantified group (like (a+)+); simplify it.", {
      data: { field: "pattern" },
    });
  }
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new ToolError("invalid_input", `pattern is not a valid regular expression: ${(error as Error).message}`, {
      data: { field: "pattern" },
    });
  }
}

/** `text` with each line cut to {@link MAX_MATCHED_LINE} characters. */
function cutLines(text: string): string {
  return text
    .split("\n")
    .map((line) => (line.length > MAX_MATCHED_LINE ? line.slice(0, MAX_MATCHED_LINE) : line))
    .join("\n");
}

/** Waits for a line matching `pattern`, the process's exit, or the timeout, whichever is first. */
function waitFor(
  process: MonitoredProcess,
  pattern: RegExp | undefined,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<"matched" | "exited" | "timeout"> {
  const from = process.cursor;
  const matcher = pattern === undefined ? undefined : new LineMatcher(pattern.source, pattern.flags, MATCH_DEADLINE_MS);
  return new Promise((resolve, reject) => {
    let done = false;
    let matching = false;
    let changedWhileMatching = false;
    const check = () => {
      if (done) return;
      if (matcher === undefined) {
        if (!process.running) finish("exited");
        return;
      }
      if (matching) {
        changedWhileMatching = true;
        return;
      }
      // Only the kept output is searched: the buffer bounds the work a pattern can cause.
      const running = process.running;
      matching = true;
      matcher.match([cutLines(process.output.readFrom(from).text)], signal).then(
        ([found]) => {
          matching = false;
          if (done) return;
          if (found !== undefined && found.length > 0) finish("matched");
          else if (changedWhileMatching) {
            changedWhileMatching = false;
            check();
          } else if (!running) finish("exited");
        },
        (error: unknown) => {
          matching = false;
          if (done) return;
          if (error instanceof MatchDeadlineError) {
            fail(
              new ToolError(
                "pattern_too_slow",
                `pattern took longer than ${MATCH_DEADLINE_MS} ms on the output and was stopped.`,
                {
                  hint: "Use a simpler pattern: a plain word or a fixed string, without nested or repeated alternatives.",
                  data: { field: "pattern" },
                },
              ),
            );
          } else finish("timeout");
        },
      );
    };
    const settle = () => {
      done = true;
      off();
      clearTimeout(timer);
      signal.removeEventListener("abort", onAbort);
      void matcher?.close();
    };
    const finish = (how: "matched" | "exited" | "timeout") => {
      settle();
      resolve(how);
    };
    const fail = (error: ToolError) => {
      settle();
      reject(error);
    };
    const onAbort = () => finish("timeout");
    const off = process.onChange(check);
    const timer = setTimeout(() => finish("timeout"), timeoutMs);
    signal.addEventListener("abort", onAbort, { once: true });
    check();
  });
}

class Monitor {
  private readonly sandboxes = new Map<string, Promise<ProcessSandbox>>();
  private readonly options: MonitorToolOptions;
  private readonly shellFor: (root: string) => string;
  readonly budget: RunBudgetPlan | undefined;

  constructor(options: MonitorToolOptions) {
    checkNumberOption(options.maxBufferBytes, "maxBufferBytes", { min: 1, integer: true }, "createMonitorTool");
    checkNumberOption(options.maxPollBytes, "maxPollBytes", { min: 1, integer: true, infinite: true }, "createMonitorTool");
    checkNumberOption(options.maxProcesses, "maxProcesses", { min: 1, integer: true, infinite: true }, "createMonitorTool");
    this.options = options;
    this.shellFor = trustedShellResolver(options.shell);
    this.budget = runBudgetPlan(options.limits, options.runLimits);
  }

  async handle(input: MonitorInput, context: ToolContext): Promise<unknown> {
    const monitors = context.storage.get(RUN_MONITORS);
    switch (input.action) {
      case "start":
        return this.start(input, context, monitors);
      case "list":
        return [...monitors.processes.values()].map((process) => ({
          id: process.id,
          command: process.command,
          status: describeExit(process),
        }));
      case "poll":
        return take(this.find(monitors, input.id), this.options.maxPollBytes ?? 32 * 1024);
      case "wait": {
        const process = this.find(monitors, input.id);
        const pattern = input.pattern === undefined ? undefined : compilePattern(input.pattern);
        const how = await waitFor(process, pattern, (input.timeout_seconds ?? 30) * 1000, context.signal);
        return { waited: how, ...take(process, this.options.maxPollBytes ?? 32 * 1024) };
      }
      case "stop": {
        const process = this.find(monitors, input.id);
        process.stop();
        await process.exited;
        return take(process, this.options.maxPollBytes ?? 32 * 1024);
      }
    }
  }

  private find(monitors: RunMonitors, id: string | undefined): MonitoredProcess {
    if (id === undefined) throw new ToolError("invalid_input", "id is required for this action.", { data: { field: "id" } });
    const process = monitors.processes.get(id);
    if (process === undefined) {
      throw new ToolError("unknown_monitor", `There is no monitored process ${JSON.stringify(id)} in this run.`, {
        hint: 'List them with {"action":"list"}.',
      });
    }
    return process;
  }

  private async start(input: MonitorInput, context: ToolContext, monitors: RunMonitors): Promise<unknown> {
    if (input.command === undefined) {
      throw new ToolError("invalid_input", "command is required to start.", { data: { field: "command" } });
    }
    this.checkLimit(monitors);
    const scope = resolveFileScope(context, this.options);
    const cwd = input.cwd === undefined ? scope.root : await scope.resolve(input.cwd, "read");
    const shell = this.shellFor(scope.root);
    const sandbox = await this.sandboxFor(context, scope.root);
    if (monitors.closed) throw new ToolError("run_closed", "The run is closing; nothing new starts.");
    const id = `mon_${monitors.next++}`;
    const { release, revoked } = await reserveRunResources(context, this.budget, "monitor", `monitor ${id}`);
    if (monitors.closed) {
      release();
      throw new ToolError("run_closed", "The run is closing; nothing new starts.");
    }
    // An abort listener added below would never fire for a signal aborted already.
    if (revoked.aborted) {
      release();
      throw revoked.reason;
    }
    // Counted again after the last await, with none before the process is registered: parallel
    // starts of one step all passed the first count (taken before the awaits above) and all ran.
    try {
      this.checkLimit(monitors);
    } catch (error) {
      release();
      throw error;
    }
    let child: SandboxedProcess;
    try {
      child = sandbox.spawn({ command: shell, args: ["-c", input.command], cwd });
    } catch (error) {
      release();
      // The spawn's own refusals (git state it cannot keep read-only) are the sandbox's, as the probe's are.
      throw error instanceof SandboxUnavailableError ? sandboxUnavailable(error) : error;
    }
    // No pid: the spawn failed (its error settles the exit at once). Refused for want of
    // descriptors it is too_many_open_files, as bash answers, not a monitor "failed to start".
    if (child.pid === undefined) {
      const exit = await child.exited;
      if (isDescriptorExhaustion(exit.error)) {
        release();
        throw exit.error;
      }
    }
    // Held until the command and everything it started are gone (the exit settles after that).
    void child.exited.then(release);
    const process = new MonitoredProcess(id, input.command, child, this.options.maxBufferBytes ?? 256 * 1024, Date.now());
    // A parent run whose budget the share comes from was closed: the command ends with it, even
    // when this run is never closed (a child whose runner ignores its abort signal).
    const onRevoked = () => process.stop();
    // Added with no await since the check above: the signal cannot have aborted unheard.
    revoked.addEventListener("abort", onRevoked, { once: true });
    void child.exited.then(() => revoked.removeEventListener("abort", onRevoked));
    if (monitors.processes.size === 0) {
      // Ended with the run: every process this run started is killed when it closes.
      context.addRunDisposer(async () => {
        monitors.closed = true;
        const all = [...monitors.processes.values()];
        for (const each of all) each.stop();
        await Promise.all(all.map((each) => each.exited));
      });
    }
    monitors.processes.set(id, process);
    // Give a command that fails at once the chance to say so in the first answer.
    await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, 100))]);
    const where = path.relative(scope.root, cwd) || ".";
    const started = { id, cwd: where, sandbox: `${sandbox.kind}/${sandbox.scope}` };
    // Output of a running process is left for poll and wait (a pattern may be in it already).
    if (process.running) return { ...started, status: "running", hint: "Read its output with poll, or wait for a pattern." };
    return { ...take(process, this.options.maxPollBytes ?? 32 * 1024), ...started };
  }

  private checkLimit(monitors: RunMonitors): void {
    const limit = this.options.maxProcesses ?? 4;
    const running = [...monitors.processes.values()].filter((process) => process.running).length;
    if (running >= limit) {
      throw new ToolError("too_many_monitors", `${running} monitored processes are running (the limit is ${limit}).`, {
        hint: "Stop one first.",
      });
    }
  }

  private async sandboxFor(context: ToolContext, root: string): Promise<ProcessSandbox> {
    const scope = context.permissions.sandbox;
    const key = `${scope}\u0000${root}`;
    let sandbox = this.sandboxes.get(key);
    if (sandbox === undefined) {
      sandbox = createProcessSandbox({
        scope,
        workspace: root,
        allowUnsandboxedFallback: this.options.allowUnsandboxedFallback ?? false,
        ...(this.options.limits === undefined ? {} : { limits: this.options.limits }),
      });
      sandbox.catch(() => this.sandboxes.delete(key));
      this.sandboxes.set(key, sandbox);
    }
    try {
      return await sandbox;
    } catch (error) {
      throw error instanceof SandboxUnavailableError ? sandboxUnavailable(error) : error;
    }
  }
}

/**
 * `monitor`: starts a long-running command (a dev server, a watcher, a test run) in the
 * background under the run's sandbox and policy, then polls its new output, waits for a pattern
 * or its exit, and stops it. Output is kept in a bounded buffer; every process a run started is
 * killed (with everything it started) when the run closes.
 * @public
 */
export function createMonitorTool(options: MonitorToolOptions = {}): AnyToolDefinition {
  const monitor = new Monitor(options);
  return defineTool({
    // The run's totals are declared when a run is made with the tool, not at its first command.
    ...runSetupHook("monitor", monitor.budget),
    name: "monitor",
    description:
      "Run a long-running command in the background (dev server, watcher, long build) and watch it: start, poll new output, wait for a pattern or exit, stop.",
    inputSchema: schemas().monitorInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Monitor background command", destructiveHint: true, openWorldHint: true },
    tags: [BUILTIN_TAG, CORE_SET_TAG, "shell", "background", "process", "monitor", "server", "watch", "logs"],
    handler: (input, context) => monitor.handle(input, context),
  });
}

/**
 * `monitor`, present unless the host turns it off (`enabled: false`).
 *
 * @public
 */
export function monitorToolGroup(options: MonitorToolOptions): ToolGroup {
  return {
    name: "monitor",
    enabled: options.enabled ?? true,
    tools: () => [createMonitorTool(options)],
  };
}

/** A sandbox refusal as the model's `sandbox_unavailable`, with what to tell the user. */
function sandboxUnavailable(error: SandboxUnavailableError): ToolError {
  return new ToolError("sandbox_unavailable", `monitor cannot start a command: ${error.message}`, {
    hint: "The sandbox is required by this run's permissions; tell the user what the host must install or enable.",
  });
}
