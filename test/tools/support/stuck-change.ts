/**
 * The one-group change whose rename pass fails part way, shared by the crash tests that make it
 * fail for real (one-group-kill-revert, rename-fail-state-full, recovery-foreign-writes): 50 files
 * in 20 directories, one target made immutable (`chattr +i`, needs root), the change run in a child
 * (many-file-patch.mjs), a watcher script that kills it at a chosen intent-log event, and a
 * recovery in a new process (swap-race-patch.mjs).
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { nodeChild } from "../../support/child-entry.js";

/** The repository's root (children run from it). */
export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The script that makes the change (a child process). */
export const changeScript = path.join(repo, "test/tools/support/many-file-patch.mjs");
/** The script whose `ls` runs a workspace's recovery first (a new process). */
export const recoverScript = path.join(repo, "test/tools/support/swap-race-patch.mjs");
/** 50 files in 20 directories (one group at `ulimit -n` 1024): even ones updated, odd ones added. */
export const CHANGE = { limit: 1024, dirs: 20, files: 50 } as const;
/** The target whose rename fails (in d8, renamed after d0..d7 and d10..d19: the order is by path). */
export const STUCK = "d8/f8.txt";

/** File `i`'s path in the workspace, as many-file-patch.mjs names it. */
export const fileOf = (i: number): string => `d${i % CHANGE.dirs}/f${i}.txt`;

/** STUCK made mutable again, where it exists (else nothing to do). */
export function unstick(workspace: string): void {
  try {
    execFileSync("chattr", ["-i", path.join(workspace, STUCK)], { stdio: "ignore" });
  } catch {}
}

/** The workspace emptied, then files `i` (even: existing, "old i"); `stuck`: STUCK immutable. */
export function seedChange(workspace: string, stuck: boolean): void {
  unstick(workspace);
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < CHANGE.dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < CHANGE.files; i += 2) writeFileSync(path.join(workspace, fileOf(i)), `old ${i}\n`);
  if (stuck) execFileSync("chattr", ["+i", path.join(workspace, STUCK)]);
}

/** File `i`'s text, or undefined where it is absent. */
export function textOf(workspace: string, i: number): string | undefined {
  try {
    return readFileSync(path.join(workspace, fileOf(i)), "utf8");
  } catch {
    return undefined;
  }
}

/** The files not wholly as `whole` says (old files "old", added ones absent; or all "new"). */
function notWhole(workspace: string, whole: "before" | "after"): string[] {
  const wrong: string[] = [];
  for (let i = 0; i < CHANGE.files; i++) {
    const text = textOf(workspace, i);
    const expected = whole === "after" ? `new ${i}\n` : i % 2 === 1 ? undefined : `old ${i}\n`;
    if (text !== expected) wrong.push(`${fileOf(i)}=${JSON.stringify(text)}`);
  }
  return wrong;
}

/** Which whole state the files are in, or up to `shown` files of each that are not. */
export function wholeState(workspace: string, shown = 8): "before" | "after" | string {
  const before = notWhole(workspace, "before");
  if (before.length === 0) return "before";
  const after = notWhole(workspace, "after");
  if (after.length === 0) return "after";
  return `mixed: not old ${before.slice(0, shown).join(" ")}; not new ${after.slice(0, shown).join(" ")}`;
}

/** The states the logs in `intents` say now ("none" without one; a handed-over log as `handed-<state>`). */
export function loggedStates(intents: string): string {
  const names = readdirSync(intents).filter((name) => name.endsWith(".json"));
  const states = names.map((name) => {
    try {
      const { state } = JSON.parse(readFileSync(path.join(intents, name), "utf8")) as { state: string };
      return `${name.startsWith("abandoned-") ? "handed-" : ""}${state}`;
    } catch {
      return "unreadable";
    }
  });
  return states.length === 0 ? "none" : states.join("+");
}

/** A watcher script running: `tell` it the changing child's pid, read what it `said`, `end` it. */
export interface Watcher {
  tell(pid: number): void;
  said(): string;
  end(): Promise<void>;
}

/** Spawns a watcher script (it prints "watching" once ready, then reads the pid to watch from stdin). */
export async function startWatcher(file: string, args: readonly string[]): Promise<Watcher> {
  const child = spawn(process.execPath, [file, ...args], { stdio: ["pipe", "pipe", "inherit"] });
  let said = "";
  const ended = new Promise((resolve) => child.once("exit", resolve));
  await new Promise<void>((resolve) =>
    child.stdout.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("watching")) resolve();
    }),
  );
  return {
    tell: (pid) => child.stdin.end(`${pid}\n`),
    said: () => said.replace("watching\n", "").trim(),
    end: async () => {
      child.kill("SIGTERM");
      await ended;
    },
  };
}

/** The change in a child, watched by `watchers` (each told its pid); its exit signal and what it printed. */
export async function watchedChange(
  workspace: string,
  watchers: readonly Watcher[],
  env?: NodeJS.ProcessEnv,
): Promise<{ signal: NodeJS.Signals | null; printed: string }> {
  const entry = nodeChild(changeScript, [JSON.stringify({ workspace, ...CHANGE })], env === undefined ? {} : { env });
  const child = spawn(process.execPath, entry.args, { cwd: repo, env: entry.env, stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  child.stdout.on("data", (chunk) => {
    printed += String(chunk);
  });
  for (const watcher of watchers) watcher.tell(child.pid as number);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
  for (const watcher of watchers) await watcher.end();
  return { signal, printed: printed.trim() };
}

/** Runs `file` (a test script) in a new node process to its end; its stdout and stderr. */
export function runScript(
  file: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<{ stdout: string; stderr: string }> {
  const child = nodeChild(file, args, env === undefined ? {} : { env });
  return new Promise((resolve, reject) =>
    execFile(process.execPath, child.args, { cwd: repo, env: child.env, timeout: 120_000 }, (error, stdout, stderr) =>
      error ? reject(error) : resolve({ stdout, stderr }),
    ),
  );
}

/** A recovery of `workspace` in a new process (its `ls` runs the workspace's recovery first). */
export function recoverInNewProcess(workspace: string, env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }> {
  return runScript(recoverScript, [JSON.stringify({ workspace, dirs: CHANGE.dirs, recover: true })], env);
}
