/**
 * A change of one group whose rename pass fails part way (one target immutable,
 * `chattr +i`) while the state directory is full (a small tmpfs filled to the brim right after
 * the commit: fill-on-commit.mjs stops the changing process, fills it, continues it). The
 * failure's own revert cannot be logged (its record is refused: ENOSPC), so the change must be
 * rolled forward under its still committed log. The gap closed: the old fallback took the log back
 * (or removed it) and left the renamed files to a second change of the caller, so a `kill -9`
 * between the two, or the second change refused by the same full disk, left some files new and
 * the rest old after recovery. Now the log stays `committed` and is handed to the recovery
 * (`IntentLog.handOver`: a rename, which needs no space), the call answers `partially_applied`
 * naming what is on disk, and a recovery once the file can be renamed makes every file new.
 *
 * Real faults, no hook in the product: tmpfs full, `chattr +i`, SIGKILL at each intent-directory
 * event after the first rename (kill-at-log-event.mjs). Needs root (mount, chattr): skipped
 * otherwise, loudly (the describe's name says so). CPU: about 2 + 2 * KILLS node processes (each
 * loading src through tsx, ~2-4 s of CPU at load 14 on 2 cores).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";
import {
  recoverInNewProcess,
  repo,
  STUCK,
  seedChange,
  startWatcher,
  wholeState as stateOf,
  loggedStates as statesIn,
  unstick,
  watchedChange,
} from "./support/stuck-change.js";

const killer = path.join(repo, "test/tools/support/kill-at-log-event.mjs");
const fillOnCommit = path.join(repo, "test/tools/support/fill-on-commit.mjs");
/** Kills at the 1st .. KILLS-th intent-directory event after the first rename. */
const KILLS = Number(process.env.STATE_FULL_KILLS ?? 6);
const root = process.getuid?.() === 0;

let stateMount: string;
let workspace: string;
beforeAll(async () => {
  if (!root) return;
  stateMount = await mkdtemp(path.join(tmpdir(), "atc-state-full-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", stateMount]);
});
afterAll(() => {
  if (!root) return;
  execFileSync("umount", [stateMount]);
  rmSync(stateMount, { recursive: true, force: true });
});
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-state-full-ws-"));
});
afterEach(() => {
  if (root) unstick(workspace);
  rmSync(workspace, { recursive: true, force: true });
});

/** The state directory: a private directory on the tmpfs (its root is world-writable). */
function stateDirectory(): string {
  return path.join(stateMount, "state");
}

/** The workspace's intent directory in the state directory on the tmpfs. */
async function intents(): Promise<string> {
  const restore = saveStateDirectoryEnv();
  process.env.AGENT_TOOL_CATALOG_STATE_DIR = stateDirectory();
  try {
    return intentDirectory(await realpath(workspace));
  } finally {
    restore();
  }
}

/** The workspace seeded (`stuck`: STUCK immutable), the tmpfs emptied. */
async function seed(stuck: boolean): Promise<void> {
  seedChange(workspace, stuck);
  for (const name of readdirSync(stateMount)) rmSync(path.join(stateMount, name), { recursive: true, force: true });
  mkdirSync(await intents(), { recursive: true, mode: 0o700 });
}

const wholeState = () => stateOf(workspace, 6);
const loggedStates = async () => statesIn(await intents());

/** The temporary files left in the workspace and the logs left in its intent directory. */
async function leftBehind(): Promise<string[]> {
  const temporaries = (readdirSync(workspace, { recursive: true }) as string[]).filter((entry) =>
    /\.atc-[0-9a-f]+\.tmp$/.test(entry),
  );
  return [...temporaries, ...readdirSync(await intents())];
}

/** The child's environment: the state directory on the tmpfs. */
function childEnv(): NodeJS.ProcessEnv {
  return { ...process.env, AGENT_TOOL_CATALOG_STATE_DIR: stateDirectory() };
}

/** The change in a child, the tmpfs filled at its commit; with `killAt`, killed at that intent-directory event after the first rename. */
async function change(
  killAt?: number,
): Promise<{ filled: string; killed: string; signal: NodeJS.Signals | null; printed: string }> {
  const logs = await intents();
  const filler = await startWatcher(fillOnCommit, [logs, path.join(stateMount, "filler")]);
  const killing = killAt === undefined ? undefined : await startWatcher(killer, [workspace, logs, "d0/f0.txt", String(killAt)]);
  const { signal, printed } = await watchedChange(workspace, killing === undefined ? [filler] : [filler, killing], childEnv());
  return { filled: filler.said(), killed: killing?.said() ?? "", signal, printed };
}

/**
 * The workspace seeded and the change made, again (up to 3 times) where the filler did not fill
 * the disk: it is a separate process that must notice the commit while the change goes on, and
 * at load 15-20 it noticed too late once in a clean-clone run (the change had already reverted:
 * "the disk was not filled" is the test's setup missing, not the product's outcome). Each try's
 * outcome is still checked by the caller; a fill that never happens still fails.
 */
async function seededChange(stuck: boolean, killAt?: number): ReturnType<typeof change> {
  let result: Awaited<ReturnType<typeof change>> | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    await seed(stuck);
    result = await change(killAt);
    if (result.filled.startsWith("filled")) return result;
  }
  return result as Awaited<ReturnType<typeof change>>;
}

/** A recovery in a new process (its `ls` runs the workspace's recovery first), the disk freed and the file mutable again first. */
async function recover(): Promise<string> {
  unstick(workspace);
  rmSync(path.join(stateMount, "filler"), { force: true });
  return (await recoverInNewProcess(workspace, childEnv())).stdout.trim();
}

describe.skipIf(!root)(
  "a one-group change whose rename fails part way while the state directory is full (needs root: tmpfs, chattr +i)",
  () => {
    it("positive control: with no target immutable, the change lands whole on the full state directory", async () => {
      const { filled, printed } = await seededChange(false);
      expect(filled).toMatch(/^filled \d+$/);
      expect(printed).toMatch(/"ok":true/);
      expect(wholeState()).toBe("after");
      expect(await leftBehind()).toEqual([]);
    }, 300_000);

    it("no kill: answered partially_applied with no second change; a recovery once the file is mutable makes every file new", async () => {
      const { filled, printed } = await seededChange(true);
      expect(filled).toMatch(/^filled \d+$/);
      const result = JSON.parse(printed.split("\n").at(-1) as string) as {
        ok: boolean;
        error?: { code: string; message: string };
      };
      expect(result.ok).toBe(false);
      expect(result.error?.code, printed).toBe("partially_applied");
      expect(result.error?.message).toContain(`${STUCK}: unchanged`);
      // Left for the recovery: the log, still committed, handed over.
      expect(await loggedStates()).toBe("handed-committed");
      await recover();
      expect(wholeState()).toBe("after");
      expect(await leftBehind()).toEqual([]);
    }, 300_000);

    it("killed at each intent-directory event after the first rename: recovery leaves every file wholly old or wholly new", async () => {
      const outcomes: string[] = [];
      const wrong: string[] = [];
      for (let at = 1; at <= KILLS; at++) {
        const { filled, killed, signal, printed } = await seededChange(true, at);
        const logged = await loggedStates();
        await recover();
        const state = wholeState();
        const left = await leftBehind();
        outcomes.push(`${at}:${filled}:${killed}:${signal ?? "exit"}:log=${logged}:${state.slice(0, 6)}`);
        if (!filled.startsWith("filled")) wrong.push(`event ${at}: the disk was not filled (${filled})`);
        if (state !== "before" && state !== "after") wrong.push(`event ${at} (${killed}, ${signal ?? printed}): ${state}`);
        if (left.length > 0) wrong.push(`event ${at} (${killed}): left ${left.join(" ")}`);
      }
      expect(wrong, outcomes.join(" ")).toEqual([]);
      // The window was reached: a change killed once its log was handed over came back wholly new.
      expect(
        outcomes.some((outcome) => outcome.includes("SIGKILL:log=handed-committed:after")),
        outcomes.join(" "),
      ).toBe(true);
    }, 1_800_000);
  },
);
