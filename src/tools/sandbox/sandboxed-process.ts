import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { Readable, type Writable } from "node:stream";
import type { CommandCgroup } from "./command-cgroup.js";
import type { AfterCommandRepairs } from "./control-file-removal.js";
import type { SandboxedCommand, SandboxedExit, SandboxedProcess } from "./process-sandbox.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";

/** How a driver launches its wrapped command. */
export interface LaunchPlan {
  /** The program to spawn (bwrap, sandbox-exec, or the command itself). */
  readonly executable: string;
  /** Its full argument list. */
  readonly args: readonly string[];
  /** The host directory to start the launcher in. */
  readonly cwd: string;
  /** The launcher's exact environment; nothing else is inherited. */
  readonly env: Readonly<Record<string, string>>;
  /** A seccomp program handed to the launcher on fd 3 (`bwrap --seccomp 3`). */
  readonly seccomp?: Uint8Array;
  /**
   * NUL-separated launcher arguments handed on fd 4 (`bwrap --args 4`): options that must reach
   * bwrap but neither its command line (any host user reads it in `ps`) nor its environment.
   */
  readonly argumentsFile?: Uint8Array;
  /** Put the launcher in its own process group, so `kill` reaches its children too. */
  readonly processGroup: boolean;
  /**
   * Also end, with the command, every process that still carries its tag in the environment
   * (Linux): descendants that left the process group with `setsid`. For drivers without a PID
   * namespace (unsandboxed), where nothing else would end them.
   */
  readonly reapTagged?: boolean;
  /** Runs once after the process has exited (for example to remove a private temp dir). */
  readonly cleanup?: () => void;
  /**
   * Runs once after the process has exited, before `exited` settles; returns host paths it
   * repaired (for example git control files the command created), those it could not repair
   * whole and the sequencer state it moved aside, reported in the exit.
   */
  readonly afterExit?: () => AfterCommandRepairs;
  /**
   * The command's own cgroup, which the launcher joins before it starts the sandbox: killed
   * whole with the command (`SIGKILL`), read for the limit it ran into, and removed after it ended.
   */
  readonly cgroup?: CommandCgroup;
  /**
   * Checks the sandbox before its command runs (bubblewrap): the launcher gets fd 5 (bwrap's
   * `--info-fd`, the sandbox's pid) and fd 6 (`--block-fd`, where bwrap waits after its mounts
   * and before the command). Once bwrap waits there, this is called with the sandbox's pid; a
   * problem it returns kills the sandbox before the command has run (the exit's `error`),
   * `undefined` lets the command start.
   */
  readonly verifyBeforeCommand?: (sandboxPid: number) => Error | undefined;
}

/** The launcher's descriptor for bwrap's `--info-fd` when the plan verifies the sandbox. */
export const INFO_FD = 5;
/** The launcher's descriptor for bwrap's `--block-fd` when the plan verifies the sandbox. */
export const BLOCK_FD = 6;

/** How long a process may take to end after `SIGTERM` before it gets `SIGKILL`. */
export const KILL_GRACE_MS = 2_000;

/**
 * Spawns a launch plan with the request's stdin, input and signal; shared by every driver so they
 * handle abort, exit and spawn errors the same way.
 */
export function startSandboxedProcess(plan: LaunchPlan, request: SandboxedCommand): SandboxedProcess {
  if (plan.verifyBeforeCommand !== undefined) assertOwnProcessView();
  const stdinMode = request.input !== undefined ? "pipe" : (request.stdin ?? "ignore");
  const tag = plan.reapTagged === true && process.platform === "linux" ? randomUUID() : undefined;
  const child = spawn(plan.executable, [...plan.args], {
    cwd: plan.cwd,
    env: tag === undefined ? { ...plan.env } : { ...plan.env, [PROCESS_TAG_VARIABLE]: tag },
    stdio: launcherStdio(stdinMode, plan),
    detached: plan.processGroup,
    windowsHide: true,
  });
  // A spawn refused for want of descriptors (EMFILE, ENFILE) makes no pipes and emits its error
  // on the next tick: listened to from here (watchExit reports it as the exit's error), since
  // anything below that threw first left it unheard, and an unheard 'error' ends the host.
  child.on("error", () => undefined);
  // Without pipes (that failed spawn) `stdio` itself is missing.
  const stdio = child.stdio as ChildProcess["stdio"] | undefined;
  if (plan.seccomp !== undefined) sendAndClose(stdio?.[3], plan.seccomp);
  if (plan.argumentsFile !== undefined) sendAndClose(stdio?.[4], plan.argumentsFile);
  if (request.input !== undefined) sendAndClose(child.stdin, request.input);
  else child.stdin?.on("error", () => undefined);
  // Read for every driver: bwrap's sandbox process (PID 1 of the command's namespace) sets its
  // parent-death signal only once its mounts are done, so a bwrap stopped before then leaves it
  // running, orphaned, with the output pipes (see watchExit).
  const outputs = commandOutput(child.pid);
  const kill = (signal: NodeJS.Signals = "SIGKILL") => {
    signalProcess(child, plan.processGroup, signal);
    if (tag !== undefined) killTagged(tag);
    // A descendant that left the group and cleared its environment still holds the output
    // pipes open (a caller reading to the end would wait for it): the pipes name it.
    if (signal === "SIGKILL" && outputs !== undefined) killHolders(outputs);
    // SIGTERM gives the command its grace period; SIGKILL ends everything in its cgroup too.
    if (signal === "SIGKILL") plan.cgroup?.killAll();
  };
  const setup: SetupState = {};
  if (plan.verifyBeforeCommand !== undefined) gateCommand(child, plan.verifyBeforeCommand, setup, kill);
  const exited = watchExit(child, plan, request.signal, kill, tag, outputs, setup);
  // No pipes: the spawn failed (exited settles with its error); empty streams stand in for them.
  const stdout = child.stdout ?? Readable.from([]);
  const stderr = child.stderr ?? Readable.from([]);
  return { pid: child.pid, stdin: request.input === undefined ? child.stdin : null, stdout, stderr, exited, kill };
}

function watchExit(
  child: ChildProcess,
  plan: LaunchPlan,
  signal: AbortSignal | undefined,
  kill: (signal?: NodeJS.Signals) => void,
  tag: string | undefined,
  outputs: CommandOutput | undefined,
  setup: SetupState,
): Promise<SandboxedExit> {
  return new Promise<SandboxedExit>((resolve) => {
    let escalation: NodeJS.Timeout | undefined;
    let settled = false;
    let aborted = false;
    const onAbort = () => {
      aborted = true;
      kill("SIGTERM");
      escalation = setTimeout(() => kill("SIGKILL"), KILL_GRACE_MS);
      escalation.unref();
    };
    const finish = (exit: SandboxedExit) => {
      if (settled) return;
      settled = true;
      // Whatever the command left running in its group (`sleep 30 &`, a daemon that did not
      // setsid) ends with it: it would otherwise hold stdout open past the timeout and outlive
      // the call and the registry. Long-running processes belong in the monitor tool.
      if (plan.processGroup) killGroup(child, "SIGKILL");
      if (tag !== undefined) killTagged(tag);
      // A launcher stopped while it was starting the sandbox can leave what it started running
      // outside its group and parentless: bwrap's PID 1, before it has set its parent-death
      // signal (it does so after its mounts and its setsid), ran on with the output pipes, so a
      // caller reading them to the end waited for ever (grep under load). It is found by the
      // pipes it holds. Only after an abort: a launcher that ended by itself ended its sandbox.
      if (aborted && outputs !== undefined) killHolders(outputs);
      signal?.removeEventListener("abort", onAbort);
      if (escalation !== undefined) clearTimeout(escalation);
      plan.cleanup?.();
      const checked = setup.failure === undefined ? exit : { ...exit, error: setup.failure };
      const result = afterExitResult(checked, plan);
      // The exit settles once the group is gone, so a caller that checks finds nothing left.
      if (plan.cgroup === undefined) resolve(result);
      else
        void plan.cgroup
          .release()
          .catch(() => undefined)
          .then(() => resolve(result));
    };
    child.once("error", (error) => {
      if (child.pid === undefined) finish({ exitCode: null, signal: null, error });
    });
    child.once("exit", (exitCode, exitSignal) => finish({ exitCode, signal: exitSignal }));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** What {@link gateCommand} found: set when the sandbox was refused before its command ran. */
interface SetupState {
  failure?: Error;
}

/**
 * Reads the sandbox's pid from bwrap's info descriptor, waits until bwrap blocks on its block
 * descriptor (all mounts made, the command not started), then runs the plan's check: the command
 * starts (a byte on the block descriptor) only when it finds nothing; otherwise the sandbox is
 * killed there. Polled every {@link GATE_POLL_MS} ms, never busy.
 */
function gateCommand(
  child: ChildProcess,
  verify: (sandboxPid: number) => Error | undefined,
  setup: SetupState,
  kill: (signal?: NodeJS.Signals) => void,
): void {
  const stdio = child.stdio as unknown as ReadonlyArray<Readable | Writable | null> | undefined;
  const info = stdio?.[INFO_FD] as Readable | null | undefined;
  const block = stdio?.[BLOCK_FD];
  if (info == null || !isWritable(block)) return;
  block.on("error", () => undefined);
  info.on("error", () => undefined);
  let ended = false;
  child.once("exit", () => {
    ended = true;
  });
  let text = "";
  let sandboxPid: number | undefined;
  info.setEncoding("utf8");
  info.on("data", (chunk: string) => {
    if (sandboxPid !== undefined) return;
    text += chunk;
    const found = /"child-pid":\s*(\d+)/.exec(text);
    if (found === null) return;
    sandboxPid = Number(found[1]);
    waitUntilBlocked(sandboxPid);
  });
  let unreadable = 0;
  const waitUntilBlocked = (pid: number) => {
    if (ended) return;
    const state = blockedOnBlockFd(pid);
    if (state === "gone") return;
    // A sandbox process that just died (a zombie until bwrap reaps it) reads so too for a moment.
    if (state === "unreadable" && ++unreadable < GATE_UNREADABLE_POLLS) {
      setTimeout(() => waitUntilBlocked(pid), GATE_POLL_MS);
      return;
    }
    if (state === "unreadable") {
      // Never started unchecked, and never left waiting for ever either.
      setup.failure = unreadableSetupState(pid);
      kill("SIGKILL");
      return;
    }
    if (state === "setting-up") {
      setTimeout(() => waitUntilBlocked(pid), GATE_POLL_MS);
      return;
    }
    let failure: Error | undefined;
    try {
      failure = verify(pid);
    } catch (error) {
      failure = error instanceof Error ? error : new Error(String(error));
    }
    if (failure === undefined) {
      block.end("1");
      return;
    }
    setup.failure = failure;
    kill("SIGKILL");
  };
}

/**
 * The refusal when the host may not read `/proc/<pid>/syscall` of bwrap's sandbox process (a
 * `/proc` mounted with `hidepid`, a security module denying the host such reads): the gate cannot
 * tell when bwrap has made its last mount, so the command is never started unchecked.
 */
export function unreadableSetupState(pid: number): SandboxUnavailableError {
  return new SandboxUnavailableError(
    `The sandbox was refused before the command ran: the host cannot read /proc/${pid}/syscall, which tells when bwrap has finished mounting (its mount table is checked then); nothing ran. ` +
      "This is the host's setup, not the command's: the host process needs to read its own children's /proc entries (no hidepid on /proc, no security module denying it).",
    { data: { reason: "setup_state_unreadable", path: `/proc/${pid}/syscall` } },
  );
}

/**
 * Refuses, at once, a gated launch on a host whose `/proc` is another pid namespace's (a container
 * given its host's `/proc`): bwrap reports the sandbox's pid in this process's namespace, so
 * `/proc/<pid>` would be another process or none, and the gate would wait on it until the
 * command's timeout. `/proc/self` names this process's pid as that `/proc` counts it.
 */
export function assertOwnProcessView(procSelf = "/proc/self"): void {
  let seen: string | undefined;
  try {
    seen = readlinkSync(procSelf);
  } catch {
    seen = undefined;
  }
  if (seen === String(process.pid)) return;
  throw new SandboxUnavailableError(
    `The sandbox cannot start: /proc is not this process's pid namespace's (${procSelf} is ${seen === undefined ? "unreadable" : `pid ${seen}`}, this process is pid ${process.pid}), so the host cannot watch bwrap set the sandbox up and check its mounts before the command runs. ` +
      "Mount a /proc of the host process's own pid namespace (in a container: the default /proc, not the host's).",
    { data: { reason: "foreign_proc", path: procSelf } },
  );
}

const GATE_POLL_MS = 2;
/** How many polls in a row may find the sandbox process's state unreadable before it is refused. */
const GATE_UNREADABLE_POLLS = 100;

/** The `read` system call's number, per architecture (for /proc/<pid>/syscall). */
const READ_SYSCALL: Readonly<Record<string, string>> = { x64: "0", arm64: "63", riscv64: "63", ia32: "3", arm: "3" };

/**
 * Whether `pid` is in `read(BLOCK_FD, ...)`: bwrap's sandbox process waiting on its block
 * descriptor, which it reads only after its last mount (`/proc/<pid>/syscall`: number, then
 * arguments; `running` while it runs). `gone` once it has exited; `unreadable` when the host may
 * not read the file (then the sandbox is refused rather than started unchecked).
 */
function blockedOnBlockFd(pid: number): "blocked" | "setting-up" | "gone" | "unreadable" {
  let fields: string[];
  try {
    fields = readFileSync(`/proc/${pid}/syscall`, "latin1").trim().split(" ");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ESRCH" ? "gone" : "unreadable";
  }
  const read = READ_SYSCALL[process.arch];
  return (read === undefined || fields[0] === read) && fields[1] === `0x${BLOCK_FD.toString(16)}` ? "blocked" : "setting-up";
}

/** The exit with what the plan's after-exit steps found: repaired files, a limit reached. */
function afterExitResult(exit: SandboxedExit, plan: LaunchPlan): SandboxedExit {
  let result: SandboxedExit = exit;
  try {
    const { removed, left, quarantined, newGitState } = plan.afterExit?.() ?? {
      removed: [],
      left: [],
      quarantined: [],
      newGitState: [],
    };
    if (removed.length > 0) result = { ...result, repaired: removed };
    if (left.length > 0) result = { ...result, notRepaired: left };
    if (quarantined.length > 0) result = { ...result, quarantined };
    if (newGitState.length > 0) result = { ...result, newGitState };
  } catch (error) {
    result = { ...result, error: error instanceof Error ? error : new Error(String(error)) };
  }
  const limit = plan.cgroup?.limitReached();
  return limit === undefined ? result : { ...result, limit };
}

function signalProcess(child: ChildProcess, processGroup: boolean, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  // The group outlives its leader: signal it even when the leader has exited already.
  if (processGroup && killGroup(child, signal)) return;
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
}

/** Signals the child's process group; false when there is none left (or no pid). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** The launcher's descriptors: the standard streams, then fd 3 (seccomp) and fd 4 (arguments) when the plan has them. */
function launcherStdio(stdinMode: "pipe" | "ignore" | "inherit", plan: LaunchPlan): Array<"pipe" | "ignore" | "inherit"> {
  const stdio: Array<"pipe" | "ignore" | "inherit"> = [stdinMode, "pipe", "pipe"];
  const verified = plan.verifyBeforeCommand !== undefined;
  if (plan.seccomp !== undefined || plan.argumentsFile !== undefined || verified)
    stdio.push(plan.seccomp === undefined ? "ignore" : "pipe");
  if (plan.argumentsFile !== undefined || verified) stdio.push(plan.argumentsFile === undefined ? "ignore" : "pipe");
  // fd 5 (info) and 6 (block)
  if (verified) stdio.push("pipe", "pipe");
  return stdio;
}

function sendAndClose(stream: unknown, data: string | Uint8Array): void {
  if (!isWritable(stream)) return;
  stream.on("error", () => undefined);
  stream.end(data);
}

function isWritable(stream: unknown): stream is Writable {
  return typeof stream === "object" && stream !== null && "end" in stream && typeof stream.end === "function";
}

/** The environment variable that tags every process a command starts (see `LaunchPlan.reapTagged`). */
export const PROCESS_TAG_VARIABLE = "AGENT_TOOL_CATALOG_PROCESS_TAG";

/**
 * Kills every process of this user whose environment carries `tag` (read from /proc). A process
 * that cleared its environment escapes this; unsandboxed scope promises no more (the sandboxed
 * scopes end everything with their PID namespace).
 */
function killTagged(tag: string): void {
  // One pass can miss a child that a tagged process was forking while /proc was read (seen in CI:
  // `setsid sh -c 'sleep …'` left its sleep behind). A killed process forks no more, so passes
  // repeat until one finds nothing alive, with a short wait for the killed to become zombies.
  // Two quiet passes in a row, not one: a process inside execve has no environment to read for a
  // moment (the new image's is not set up yet), so one pass can see none while `sh` becomes
  // `sleep` (seen in CI at load 15: two setsid'd sleepers outlived their call).
  let quiet = 0;
  for (let pass = 0; pass < TAG_KILL_PASSES; pass++) {
    if (killTaggedOnce(tag) === 0) {
      quiet++;
      if (quiet === 2) return;
    } else quiet = 0;
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

const TAG_KILL_PASSES = 20;

/**
 * The command's output as {@link killHolders} looks for it: what its stdout and stderr are
 * (`socket:[N]` or `pipe:[N]`, the child's own ends) and when it started, read from /proc as soon
 * as it started; undefined when either cannot be read (then no holder is ever killed).
 */
interface CommandOutput {
  readonly ends: ReadonlySet<string>;
  /** The command's start, in clock ticks since boot (`/proc/<pid>/stat` field 22). */
  readonly startTicks: number;
}

function commandOutput(pid: number | undefined): CommandOutput | undefined {
  if (pid === undefined || process.platform !== "linux") return undefined;
  const startTicks = startTime(pid);
  if (startTicks === undefined) return undefined;
  const ends = new Set<string>();
  for (const descriptor of [1, 2]) {
    try {
      const end = readlinkSync(`/proc/${pid}/fd/${descriptor}`);
      if (/^(socket|pipe):\[\d+\]$/.test(end)) ends.add(end);
    } catch {
      // Already gone: nothing of it can hold the pipe longer than what the tag finds.
    }
  }
  return ends.size === 0 ? undefined : { ends, startTicks };
}

/**
 * Kills every process of this user that holds the command's output open and that the command
 * started, repeated like {@link killTagged} until a pass finds none: a holder forking at the
 * moment /proc was read hands the descriptor on.
 *
 * "The command started it" is read as "it started no earlier than the command" (start times in
 * clock ticks, /proc/<pid>/stat field 22), never this process or one of its ancestors. A process
 * that was running before the call is never killed, even when it holds the output: a command can
 * hand its stdout to a daemon (an ssh ControlMaster receives its mux clients' descriptors over a
 * unix socket), and ending that daemon would break the host. Its output is then read up to the
 * grace of `runSandboxed` and the result says it was held open. Limits: a process started in the
 * same clock tick (10 ms) before the command counts as the command's, and so does one that
 * another daemon starts on the command's request after it started (`systemd-run --pipe`'s
 * service): both started for the command and after it, they are ended with it.
 */
function killHolders(output: CommandOutput): void {
  const spared = hostAndAncestors();
  for (let pass = 0; pass < TAG_KILL_PASSES; pass++) {
    if (killHoldersOnce(output, spared) === 0) return;
    Atomics.wait(PAUSE, 0, 0, 5);
  }
}

/** One pass of {@link killHolders}: how many holders it signalled. */
function killHoldersOnce(output: CommandOutput, spared: ReadonlySet<number>): number {
  let found = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || spared.has(Number(entry))) continue;
    if (!holdsAny(entry, output.ends)) continue;
    const started = startTime(Number(entry));
    if (started === undefined || started < output.startTicks) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      found++;
    } catch {
      // Already gone.
    }
  }
  return found;
}

/** This process and its ancestors, up to the first one /proc does not show. */
function hostAndAncestors(): Set<number> {
  const chain = new Set<number>();
  let pid = process.pid;
  while (pid > 0 && !chain.has(pid)) {
    chain.add(pid);
    const parent = statFields(pid)?.[1];
    pid = parent === undefined ? 0 : Number(parent);
  }
  return chain;
}

/** When `pid` started, in clock ticks since boot; undefined when it is gone. */
function startTime(pid: number): number | undefined {
  const ticks = statFields(pid)?.[19];
  return ticks === undefined ? undefined : Number(ticks);
}

/**
 * The fields of /proc/<pid>/stat after the command name (field 3 is index 0): the name is in
 * parentheses and may itself hold spaces and parentheses, so it ends at the last `)`.
 */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

function holdsAny(pid: string, ends: ReadonlySet<string>): boolean {
  let descriptors: string[];
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or another user's
  }
  for (const descriptor of descriptors) {
    try {
      if (ends.has(readlinkSync(`/proc/${pid}/fd/${descriptor}`))) return true;
    } catch {
      // Closed meanwhile.
    }
  }
  return false;
}
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** One pass of {@link killTagged}: how many live tagged processes it signalled. */
function killTaggedOnce(tag: string): number {
  const needle = `${PROCESS_TAG_VARIABLE}=${tag}`;
  let entries: string[];
  let found = 0;
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    let environment: string;
    try {
      environment = readFileSync(`/proc/${entry}/environ`, "latin1");
    } catch {
      continue; // gone, or another user's
    }
    if (!environment.split("\0").includes(needle)) continue;
    try {
      process.kill(pid, "SIGKILL");
      found++;
    } catch {
      // Already gone.
    }
  }
  return found;
}
