/**
 * A change of one group of directories (every directory held open: the common case)
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
import { mkdirSync, rmSync } from "node:fs";
import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { leftBehind } from "./support/left-behind.js";
import {
  recoverInNewProcess,
  repo,
  seedChange,
  startWatcher,
  wholeState as stateOf,
  loggedStates as statesIn,
  unstick as unstickIn,
  watchedChange,
} from "./support/stuck-change.js";

const killer = path.join(repo, "test/tools/support/kill-at-log-event.mjs");
/** Kills at the 1st .. KILLS-th intent-directory event after the first rename. */
const KILLS = Number(process.env.ONE_GROUP_KILLS ?? 12);
const root = process.getuid?.() === 0;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-one-group-kill-"));
});
const unstick = () => unstickIn(workspace);
afterEach(() => {
  if (root) unstick();
  rmSync(workspace, { recursive: true, force: true });
});

const seed = (stuck: boolean) => seedChange(workspace, stuck);
const wholeState = () => stateOf(workspace);

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
  if (killAt === undefined) {
    const { printed } = await watchedChange(workspace, []);
    return { said: "", signal: null, printed };
  }
  const watcher = await startWatcher(killer, [
    workspace,
    intents,
    "d0/f0.txt",
    String(killAt),
    ...(inDirectory === undefined ? [] : [inDirectory]),
  ]);
  const { signal, printed } = await watchedChange(workspace, [watcher]);
  return { said: watcher.said(), signal, printed };
}

/** The states the workspace's intent logs say now ("none" without one), as a kill left them. */
async function loggedStates(): Promise<string> {
  return statesIn(intentDirectory(await realpath(workspace)));
}

/** A recovery in a new process (its `ls` runs the workspace's recovery first). */
async function recover(): Promise<void> {
  await recoverInNewProcess(workspace);
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
