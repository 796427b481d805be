/**
 * Stop 49: a change of one group of directories (every directory held open: the common case)
 * whose rename pass fails part way is taken back to "every file as before" under its own intent
 * log. The gap closed: the log was taken back to `prepared` naming only the files not yet renamed,
 * and the renamed ones were restored afterwards by a second change, so a `kill -9` between the two
 * left the renamed files new and the rest old after recovery. Now the failure names `restore`
 * files in the still committed log, writes them, turns the log `reverting` (durably) and only
 * then puts the files back: a crash anywhere leaves one state.
 *
 * The failure is real, with no hook in the product: one target (d8/f8.txt, renamed after the
 * targets of d0..d7 and d10..d19 in the pass's order by directory) is made immutable
 * (`chattr +i`, needs root) before the change; its content can be read and its directory written,
 * so the change reaches its commit point, and its rename fails (EPERM) after others landed. The
 * change runs in a child (many-file-patch.mjs), a real watcher (kill-at-log-event.mjs) kills it
 * with SIGKILL at the n-th event in the intent directory after the first rename, for n = 1, 2, ...
 * (each of the failure's log steps in turn). Then the file is made mutable again, a recovery runs
 * in a new process, and every file must be wholly old or wholly new, with nothing left behind.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { nodeChild } from "../support/child-entry.js";
import { leftBehind } from "./support/left-behind.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(repo, "test/tools/support/many-file-patch.mjs");
const killer = path.join(repo, "test/tools/support/kill-at-log-event.mjs");
const recoverer = path.join(repo, "test/tools/support/swap-race-patch.mjs");
/** 50 files in 20 directories (one group at `ulimit -n` 1024): even ones updated, odd ones added. */
const CHANGE = { limit: 1024, dirs: 20, files: 50 } as const;
/** The target whose rename fails (in d8, renamed after d0..d7 and d10..d19: the order is by path). */
const STUCK = "d8/f8.txt";
/** Kills at the 1st .. KILLS-th intent-directory event after the first rename. */
const KILLS = Number(process.env.ONE_GROUP_KILLS ?? 12);
const root = process.getuid?.() === 0;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-one-group-kill-"));
});
/** STUCK made mutable again, where it exists (else nothing to do). */
function unstick(): void {
  try {
    execFileSync("chattr", ["-i", path.join(workspace, STUCK)], { stdio: "ignore" });
  } catch {}
}
afterEach(() => {
  if (root) unstick();
  rmSync(workspace, { recursive: true, force: true });
});

/** Files `i` (even: existing, "old i") in `d{i % dirs}`, as many-file-patch.mjs expects; `stuck`: STUCK immutable. */
function seed(stuck: boolean): void {
  const stuckAt = path.join(workspace, STUCK);
  unstick();
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < CHANGE.dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < CHANGE.files; i += 2) writeFileSync(path.join(workspace, `d${i % CHANGE.dirs}`, `f${i}.txt`), `old ${i}\n`);
  if (stuck) execFileSync("chattr", ["+i", stuckAt]);
}

/** The files not wholly as `whole` says (old files "old", added ones absent; or all "new"). */
function notWhole(whole: "before" | "after"): string[] {
  const wrong: string[] = [];
  for (let i = 0; i < CHANGE.files; i++) {
    const file = `d${i % CHANGE.dirs}/f${i}.txt`;
    let text: string | undefined;
    try {
      text = readFileSync(path.join(workspace, file), "utf8");
    } catch {}
    const expected = whole === "after" ? `new ${i}\n` : i % 2 === 1 ? undefined : `old ${i}\n`;
    if (text !== expected) wrong.push(`${file}=${JSON.stringify(text)}`);
  }
  return wrong;
}

/** Which whole state the files are in, or the files of each that are not. */
function wholeState(): "before" | "after" | string {
  const before = notWhole("before");
  if (before.length === 0) return "before";
  const after = notWhole("after");
  if (after.length === 0) return "after";
  return `mixed: not old ${before.slice(0, 8).join(" ")}; not new ${after.slice(0, 8).join(" ")}`;
}

function runChild(file: string, args: readonly string[]): Promise<string> {
  const child = nodeChild(file, args);
  return new Promise((resolve, reject) =>
    execFile(process.execPath, child.args, { cwd: repo, env: child.env, timeout: 120_000 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
}

/**
 * The change in a child; with `killAt`, killed by kill-at-log-event.mjs at that event (with
 * `inDirectory`: at the first event there once the log says `reverting`).
 */
async function change(
  killAt?: number,
  inDirectory?: string,
): Promise<{ said: string; signal: NodeJS.Signals | null; printed: string }> {
  const intents = intentDirectory(await realpath(workspace));
  mkdirSync(intents, { recursive: true, mode: 0o700 });
  const entry = nodeChild(script, [JSON.stringify({ workspace, ...CHANGE })]);
  if (killAt === undefined) {
    const printed = await runChild(script, [JSON.stringify({ workspace, ...CHANGE })]);
    return { said: "", signal: null, printed };
  }
  const watcher = spawn(
    process.execPath,
    [killer, workspace, intents, "d0/f0.txt", String(killAt), ...(inDirectory === undefined ? [] : [inDirectory])],
    {
      stdio: ["pipe", "pipe", "inherit"],
    },
  );
  let said = "";
  const watcherEnded = new Promise((resolve) => watcher.once("exit", resolve));
  await new Promise<void>((resolve) =>
    watcher.stdout.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("watching")) resolve();
    }),
  );
  const child = spawn(process.execPath, entry.args, { cwd: repo, env: entry.env, stdio: ["ignore", "pipe", "inherit"] });
  let printed = "";
  child.stdout.on("data", (chunk) => {
    printed += String(chunk);
  });
  watcher.stdin.end(`${child.pid}\n`);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
  watcher.kill("SIGTERM");
  await watcherEnded;
  return { said: said.replace("watching\n", "").trim(), signal, printed };
}

/** The states the workspace's intent logs say now ("none" without one), as a kill left them. */
async function loggedStates(): Promise<string> {
  const intents = intentDirectory(await realpath(workspace));
  const names = readdirSync(intents).filter((name) => name.endsWith(".json"));
  const states = names.map((name) => (JSON.parse(readFileSync(path.join(intents, name), "utf8")) as { state: string }).state);
  return states.length === 0 ? "none" : states.join("+");
}

/** A recovery in a new process (its `ls` runs the workspace's recovery first). */
async function recover(): Promise<void> {
  await runChild(recoverer, [JSON.stringify({ workspace, dirs: CHANGE.dirs, recover: true })]);
}

describe.skipIf(!root)("a one-group change whose rename fails part way (chattr +i on a target)", () => {
  it("positive control: with no target immutable, the change lands whole", async () => {
    seed(false);
    const { printed } = await change();
    expect(printed).toMatch(/"ok":true/);
    expect(wholeState()).toBe("after");
    expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
  }, 300_000);

  it("no kill: the change is taken back, every file as before, nothing left behind", async () => {
    seed(true);
    const { printed } = await change();
    const result = JSON.parse(printed.trim().split("\n").at(-1) as string) as { ok: boolean; error?: { message: string } };
    expect(result.ok).toBe(false);
    expect(result.error?.message).toContain("No file was changed");
    expect(wholeState()).toBe("before");
    expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
  }, 300_000);

  it("killed at each log step after the failure: recovery leaves every file wholly old or wholly new", async () => {
    const outcomes: string[] = [];
    const wrong: string[] = [];
    for (let at = 1; at <= KILLS; at++) {
      seed(true);
      const { said, signal, printed } = await change(at);
      // The immutable target goes back to normal before recovery: the obstacle was the failure's, not the recovery's.
      const logged = await loggedStates();
      unstick();
      await recover();
      const state = wholeState();
      const left = await leftBehind(workspace);
      outcomes.push(`${at}:${said}:${signal ?? "exit"}:log=${logged}:${state.slice(0, 6)}`);
      if (state !== "before" && state !== "after") wrong.push(`event ${at} (${said}, ${signal ?? printed.trim()}): ${state}`);
      if (left.temporaries.length + left.logged.length > 0) wrong.push(`event ${at} (${said}): left ${JSON.stringify(left)}`);
    }
    expect(wrong, outcomes.join(" ")).toEqual([]);
    // The window was reached: a change killed with its log saying `reverting` came back wholly old.
    expect(
      outcomes.some((outcome) => outcome.includes("SIGKILL:log=reverting:before")),
      outcomes.join(" "),
    ).toBe(true);
  }, 1_800_000);

  it("killed while the revert puts d8 back (its failed file's temporary file removed): the file not renamed is kept", async () => {
    // A file not renamed whose temporary file the revert removed before the kill: were its entry
    // to name no `restore` file, the recovery of the `reverting` record would take it for an added
    // file and remove it.
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 4; attempt++) {
      seed(true);
      const { said, signal } = await change(1, "d8");
      const logged = await loggedStates();
      unstick();
      await recover();
      outcomes.push(`${attempt}:${said}:${signal ?? "exit"}:log=${logged}`);
      expect(wholeState(), outcomes.join(" ")).toBe("before");
      expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
    }
    expect(
      outcomes.some((outcome) => outcome.includes("SIGKILL:log=reverting")),
      outcomes.join(" "),
    ).toBe(true);
  }, 600_000);
});
