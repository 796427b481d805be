import path from "node:path";
import { type AnyToolDefinition, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { checkOptionKeys } from "../../tool/check-option-keys.js";
import { WORKSPACE_OPTION_NOTE } from "../fs/check-file-tool-options.js";
import { resolveFileScope } from "../fs/resolve-file-scope.js";
import { CONTROL_FILE_REMOVAL_LIMITS } from "../sandbox/control-file-removal.js";
import { createProcessSandbox } from "../sandbox/create-process-sandbox.js";
import { isDescriptorExhaustion } from "../sandbox/descriptor-exhaustion.js";
import { isDotGitName, isGitNameSpelling } from "../sandbox/git-names.js";
import { gitDirectoryLookAlike } from "../sandbox/git-protection.js";
import type { ProcessSandbox } from "../sandbox/process-sandbox.js";
import type { ResourceLimitStatus, ResourceLimits } from "../sandbox/resource-limits.js";
import { type RunResourceLimits, reserveRunResources, runBudgetPlan, runSetupHook } from "../sandbox/run-resource-budget.js";
import { checkOutputLimit, runSandboxed, type SandboxedResult } from "../sandbox/run-sandboxed.js";
import { SandboxUnavailableError } from "../sandbox/sandbox-unavailable-error.js";
import type { QuarantinedState } from "../sandbox/sequencer-quarantine.js";
import { newGitStateNotes } from "./git-state-notes.js";
import { shellQuote } from "./shell-quote.js";
import { trustedShellResolver } from "./trusted-shell.js";
import { showControlCharacters } from "./visible-control-characters.js";

/** What {@link createBashTool} reads; any other key is refused (see `checkOptionKeys`). */
const BASH_TOOL_OPTION_KEYS: readonly string[] = [
  "root",
  "allowUnsandboxedFallback",
  "allowUnixSocketPairs",
  "maxOutputBytes",
  "shell",
  "limits",
  "runLimits",
  "onLimitsUnavailable",
  "createSandbox",
];

/**
 * Options of the `bash` tool; all of them are the host's, none can be set by the model.
 *
 * @public
 */
export interface BashToolOptions {
  /** The root for relative paths when the run has no workspace. @defaultValue `process.cwd()` */
  readonly root?: string;
  /**
   * Run unsandboxed when the OS sandbox cannot start, instead of refusing. The model can never
   * ask for this.
   * @defaultValue false
   */
  readonly allowUnsandboxedFallback?: boolean;
  /**
   * Let commands create unix socket pairs, which Node's child processes (test runners, npm
   * scripts) need; connecting to unix sockets (a docker socket) stays denied.
   * @defaultValue true
   */
  readonly allowUnixSocketPairs?: boolean;
  /**
   * Bytes kept per output stream: a whole number at least 0, or `Infinity` to keep everything;
   * anything else fails `createBashTool` with `invalid_option`.
   * @defaultValue 1 MiB
   */
  readonly maxOutputBytes?: number;
  /**
   * The shell, as an absolute path the host vouches for.
   * @defaultValue a `bash` found once on the host's `PATH` (or `/usr/bin`, `/bin`) that is
   *   root-owned, not writable by group or others and outside the workspace: a relative or
   *   writable `PATH` entry (`./node_modules/.bin`) could otherwise hold a model-written `bash`
   */
  readonly shell?: string;
  /**
   * Per-command process and memory limits (scopes `local` and `workspace` on Linux with a
   * writable cgroup); `false` for none. A command that runs into one says so in its result.
   * @defaultValue 1024 processes, half the host's memory
   */
  readonly limits?: ResourceLimits | false;
  /**
   * Totals for all of a run's commands together (parallel `bash` calls, `monitor` background
   * commands given the same options): each command reserves its per-command `limits` out of them
   * while it runs, and one that does not fit waits, then fails with `run_limit_reached`. Tools
   * sharing a run share one set of totals, per limit the smallest any of them declared; a
   * command whose own limit is above it fails at once. `false` for no run totals (each command
   * still has its own limits). A total for a limit that is off per command is refused.
   * @defaultValue 8 × the per-command limits, a 30 s wait
   */
  readonly runLimits?: RunResourceLimits | false;
  /** Told once per sandbox when the limits do not hold on this host (the commands still run). */
  readonly onLimitsUnavailable?: (status: ResourceLimitStatus) => void;
  /** Builds the sandbox (tests inject one). @defaultValue `createProcessSandbox` */
  readonly createSandbox?: typeof createProcessSandbox;
}

const bashInput = z.object({
  command: z.string().min(1).max(100_000).describe("The command line, run with bash -c"),
  timeout_seconds: z.number().min(1).max(1800).optional().describe("Kill the command after this many seconds (default 120)"),
  cwd: z.string().optional().describe("Working directory, relative to the workspace (default: the workspace root)"),
});

/**
 * `bash`: runs a command under the run's sandbox: scope `workspace` in bubblewrap (read-only
 * system, writable workspace only, private /tmp, no network, no host secrets) or sandbox-exec on
 * macOS; scope `local` with no network; `unrestricted` as a plain process. Where the sandbox
 * cannot start it refuses, saying why and how to fix it (fail closed).
 * @public
 */
export function createBashTool(options: BashToolOptions = {}): AnyToolDefinition {
  checkOptionKeys(options, BASH_TOOL_OPTION_KEYS, "createBashTool", { workspace: WORKSPACE_OPTION_NOTE });
  checkOutputLimit(options.maxOutputBytes, "createBashTool");
  const sandboxes = new Map<string, Promise<ProcessSandbox>>();
  const sandboxFor = (context: ToolContext, root: string): Promise<ProcessSandbox> => {
    const scope = context.permissions.sandbox;
    const key = `${scope}\u0000${root}`;
    let sandbox = sandboxes.get(key);
    if (sandbox === undefined) {
      sandbox = (options.createSandbox ?? createProcessSandbox)({
        scope,
        workspace: root,
        allowUnsandboxedFallback: options.allowUnsandboxedFallback ?? false,
        allowUnixSocketPairs: options.allowUnixSocketPairs ?? true,
        ...(options.limits === undefined ? {} : { limits: options.limits }),
        ...(options.onLimitsUnavailable === undefined ? {} : { onLimitsUnavailable: options.onLimitsUnavailable }),
      });
      // A failed start is not cached: the host may fix its setup and the next call tries again.
      sandbox.catch(() => sandboxes.delete(key));
      sandboxes.set(key, sandbox);
    }
    return sandbox;
  };
  const shellFor = trustedShellResolver(options.shell);
  // Resolved once, so a bad option fails when the tool is made, not at the model's first call.
  const budget = runBudgetPlan(options.limits, options.runLimits);
  return defineTool({
    // The run's totals are declared when a run is made with the tool, not at its first command.
    ...runSetupHook("bash", budget),
    name: "bash",
    description:
      "Run a shell command (bash -c) in the workspace and return its exit code, stdout and stderr. " +
      "Commands run inside the run's sandbox; long output is cut.",
    inputSchema: bashInput,
    mutating: true,
    annotations: { title: "Run shell command", destructiveHint: true, openWorldHint: true },
    tags: ["builtin", "shell", "bash", "command", "terminal", "run", "exec"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const cwd = input.cwd === undefined ? scope.root : await scope.resolve(input.cwd, "read");
      let sandbox: ProcessSandbox;
      try {
        sandbox = await sandboxFor(context, scope.root);
      } catch (error) {
        throw unavailableAsToolError(error);
      }
      const shell = shellFor(scope.root);
      // The run's share first: the command's timeout starts once it may run.
      const { release, revoked, waitedMs } = await reserveRunResources(context, budget, "bash", `bash ${context.callId}`);
      const timeoutSeconds = input.timeout_seconds ?? 120;
      const timeout = AbortSignal.timeout(timeoutSeconds * 1000);
      // revoked: a parent run whose budget this share comes from was closed; the command ends with it.
      const signal = AbortSignal.any([context.signal, timeout, revoked]);
      const started = performance.now();
      let result: SandboxedResult;
      try {
        result = await runSandboxed(
          sandbox,
          { command: shell, args: ["-c", input.command], cwd, signal },
          options.maxOutputBytes === undefined ? {} : { maxOutputBytes: options.maxOutputBytes },
        );
      } catch (error) {
        // The spawn's own refusals (git state it cannot keep read-only, too many set-id files)
        // are the sandbox's, as the probe's are: sandbox_unavailable, not tool_failed.
        throw unavailableAsToolError(error);
      } finally {
        // runSandboxed returns once the command's group (cgroup, process group, tagged
        // descendants, output holders) is gone: only then is its share free for another.
        release();
      }
      if (context.signal.aborted) throw context.signal.reason;
      if (revoked.aborted) throw revoked.reason;
      // A spawn refused for want of descriptors: too_many_open_files (the run maps the system
      // error), as a cgroup that could not be made for the same reason answers, not an "ok"
      // result saying "failed to start" that a model reads as the command's own failure.
      if (isDescriptorExhaustion(result.error)) throw result.error;
      const elapsed = Math.round(performance.now() - started);
      const status = describeExit(result, timeout.aborted ? timeoutSeconds : undefined, sandbox.resourceLimits);
      const where = path.relative(scope.root, cwd) || ".";
      const waited = waitedMs >= 100 ? ` · waited ${waitedMs} ms for the run's limits` : "";
      const header = `${status} · ${elapsed} ms${waited} · cwd ${where} · sandbox ${sandbox.kind}/${sandbox.scope}`;
      // Escape sequences would act on the terminal or log that shows the result: not only the
      // output, but the names of files the command created and a failed start's message.
      return showControlCharacters([header, ...outputSections(result, scope.root)].join("\n"));
    },
  });
}

/** A sandbox refusal as the model's `sandbox_unavailable` (with what to tell the user); anything else as it is. */
function unavailableAsToolError(error: unknown): unknown {
  if (!(error instanceof SandboxUnavailableError)) return error;
  return new ToolError("sandbox_unavailable", `bash cannot run: ${error.message}`, {
    hint: "The sandbox is required by this run's permissions; tell the user what the host must install or enable.",
  });
}

/** What the command printed, and notes on what happened around it. */
function outputSections(result: SandboxedResult, root: string): string[] {
  const sections: string[] = [];
  if (result.stdout !== "") sections.push(`stdout:\n${result.stdout.trimEnd()}`);
  if (result.stderr !== "") sections.push(`stderr:\n${result.stderr.trimEnd()}`);
  if (result.truncated) sections.push("[output over the limit was cut]");
  if (result.outputHeldOpen === true) {
    sections.push(
      "[a process still held its output open after the command ended (one it left behind, or one running before it that it handed the output to, which is left alone); reading stopped at the exit. Start long-running processes with monitor]",
    );
  }
  if (result.repaired !== undefined) {
    const names = result.repaired.map((file) => path.relative(root, file)).join(", ");
    sections.push(`[removed git control files the command created, which host git would follow: ${names}]`);
  }
  if (result.notRepaired !== undefined) {
    const names = result.notRepaired.map((file) => path.relative(root, file)).join(", ");
    sections.push(
      `[not removed whole: directories the command made in place of git control files, past the removal's bound of ${CONTROL_FILE_REMOVAL_LIMITS.maxEntries} entries or ${CONTROL_FILE_REMOVAL_LIMITS.maxDepth} levels (git does not follow a directory there): ${names}]`,
    );
  }
  for (const state of result.quarantined ?? []) sections.push(quarantineNote(state, root));
  sections.push(...newGitStateNotes(result.newGitState ?? [], root));
  return sections;
}

/**
 * What was moved aside, why, and how to put it back: the user decides after reading the todo
 * list (its `exec` lines run on the host at `--continue`). Paths relative to the workspace root.
 */
function quarantineNote(state: QuarantinedState, root: string): string {
  const from = path.relative(root, state.from);
  const to = path.relative(root, state.to);
  const name = path.basename(state.from);
  // `.GIT`, `git~1`: the gitlink quarantine moves every spelling of `.git` (see foldGitName).
  if (isDotGitName(name) || name === "index") {
    const restore = `then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`;
    if (name !== "index")
      return (
        `[moved aside a git repository at a gitlink (a submodule path) that was not there when the command started: ${from} -> ${to} ` +
        "(host git status would run git in it with its own config, such as a core.fsmonitor program; nothing was deleted). " +
        `Review ${shellQuote(path.join(to, "config"))} first, ${restore}`
      );
    return (
      `[moved aside a git index whose gitlinks could not all be looked at: ${from} -> ${to} (host git status runs git, ` +
      "with its own config, in each gitlink's repository; nothing was deleted). Review the repositories it lists " +
      `(GIT_INDEX_FILE=${shellQuote(to)} git ls-files -s | grep ^160000) first, ${restore}`
    );
  }
  if (isGitNameSpelling(name, "info") && isGitNameSpelling(path.basename(path.dirname(state.from)), "objects"))
    return (
      `[moved aside an objects/info that was not there when the command started: ${from} -> ${to} ` +
      "(host git reads another object store from its alternates: on a case-folding file system also under a look-alike such as OBJECTS/info; nothing was deleted). " +
      `Review it first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
    );
  const lookAlike = gitDirectoryLookAlike(name);
  if (lookAlike !== undefined)
    return (
      `[moved aside a look-alike of a git directory's ${lookAlike} that was not there when the command started: ${from} -> ${to} ` +
      `(on a case- or normalisation-folding file system host git opens it as ${lookAlike}; nothing was deleted). ` +
      `Review it first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}]`
    );
  const todo = path.basename(state.from) === "sequencer" ? "todo" : "git-rebase-todo";
  const autostash =
    state.autostash === undefined
      ? ""
      : `; it holds uncommitted changes stashed by --autostash in commit ${state.autostash}: put the state back and run git rebase --abort to get them back, or keep them without the rebase with git stash store -m autostash ${state.autostash}`;
  return (
    `[moved aside git sequencer state that was not there when the command started: ${from} -> ${to} ` +
    "(an interrupted rebase, am, cherry-pick or revert: host git would run the exec lines of its todo list at --continue; " +
    "one the user started on the host while the command ran is moved too; nothing was deleted). " +
    `To resume it, read ${shellQuote(path.join(to, todo))} first, then from the workspace root: mv ${shellQuote(to)} ${shellQuote(from)}${autostash}]`
  );
}

/** How a command ended, in a few words, with the resource limit it ran into. */
function describeExit(
  result: SandboxedResult,
  timedOutAfter: number | undefined,
  limits: ResourceLimitStatus | undefined,
): string {
  const ending =
    timedOutAfter !== undefined
      ? `timed out after ${timedOutAfter} s (killed)`
      : result.error !== undefined
        ? `failed to start: ${result.error.message}`
        : result.signal !== null
          ? `killed by ${result.signal}`
          : `exit code ${result.exitCode}`;
  if (result.limit === "memory") {
    return `${ending}; memory limit reached (${formatBytes(limits?.maxMemoryBytes)}): a process was killed for using too much memory`;
  }
  if (result.limit === "processes") {
    return `${ending}; process limit reached (${limits?.maxProcesses ?? "?"} processes and threads): new processes were refused`;
  }
  return ending;
}

function formatBytes(bytes: number | undefined): string {
  if (bytes === undefined) return "?";
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : countOf(bytes, "byte");
}
