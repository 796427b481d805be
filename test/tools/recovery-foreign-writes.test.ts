/**
 * The recovery of a change killed while it took itself back (its log `reverting`) undoes
 * only what that change put at each name. The gap closed: it removed an added file's name, and
 * put a replaced file's old content back, whatever was there, so a file another writer created
 * or wrote at that path after the crash was lost. Now the reverting record names the SHA-256 of
 * what the change put at each name (`IntentEntry.written`): a file whose content is another's is
 * left as it is (and told by a process warning); positive control: the files still as the change
 * left them are taken back (added ones removed, replaced ones given their old content).
 *
 * Real processes, no hook in the product: a target made immutable (`chattr +i`, needs root: the
 * describe is skipped otherwise, and says so) fails the rename pass part way; the change (a
 * child) is killed with SIGKILL the moment its log says `reverting` (kill-at-reverting.mjs);
 * then a second process (`sh`) writes two of the files still new (one added, one replaced), and
 * a recovery runs in a third. CPU: up to 2 * ATTEMPTS + 1 node processes (each loading src
 * through tsx, ~2-4 s of CPU at load 14 on 2 cores).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { leftBehind } from "./support/left-behind.js";
import {
  CHANGE,
  fileOf,
  recoverInNewProcess,
  repo,
  seedChange,
  startWatcher,
  textOf as textIn,
  unstick as unstickIn,
  watchedChange,
} from "./support/stuck-change.js";

const killer = path.join(repo, "test/tools/support/kill-at-reverting.mjs");
/** Kills tried until one lands with two added and two replaced files still new. */
const ATTEMPTS = 6;
const root = process.getuid?.() === 0;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-foreign-after-kill-"));
});
const unstick = () => unstickIn(workspace);
afterEach(() => {
  if (root) unstick();
  rmSync(workspace, { recursive: true, force: true });
});

const seed = () => seedChange(workspace, true);
const textOf = (i: number) => textIn(workspace, i);

/** The change in a child, killed when its log first says `reverting`. */
async function changeKilledReverting(): Promise<{ said: string; signal: NodeJS.Signals | null }> {
  const intents = intentDirectory(await realpath(workspace));
  mkdirSync(intents, { recursive: true, mode: 0o700 });
  const watcher = await startWatcher(killer, [intents]);
  const { signal } = await watchedChange(workspace, [watcher]);
  return { said: watcher.said(), signal };
}

/** A recovery in a new process (its `ls` runs the workspace's recovery first); its stderr (warnings). */
async function recover(): Promise<string> {
  return (await recoverInNewProcess(workspace)).stderr;
}

describe.skipIf(!root)(
  "recovery of a change killed while reverting leaves another writer's files alone (needs root: chattr +i)",
  () => {
    it("a file written or created by a second process after the kill is kept; the change's own files are taken back", async () => {
      const outcomes: string[] = [];
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        seed();
        const { said, signal } = await changeKilledReverting();
        unstick();
        // The files the kill left as the change made them (not yet put back), by kind.
        const newAdded = [...Array(CHANGE.files).keys()].filter((i) => i % 2 === 1 && textOf(i) === `new ${i}\n`);
        const newReplaced = [...Array(CHANGE.files).keys()].filter((i) => i % 2 === 0 && textOf(i) === `new ${i}\n`);
        outcomes.push(`${attempt}:${said}:${signal ?? "exit"}:added ${newAdded.length}:replaced ${newReplaced.length}`);
        if (signal !== "SIGKILL" || newAdded.length < 2 || newReplaced.length < 2) continue;
        const [foreignAdded, ownAdded] = newAdded as [number, number];
        const [foreignReplaced, ownReplaced] = newReplaced as [number, number];
        // A second process writes in place (same inode) over one of each, between the kill and the recovery.
        execFileSync("sh", [
          "-c",
          `printf 'foreign %s\\n' "$1" > "$2"; printf 'foreign %s\\n' "$3" > "$4"`,
          "sh",
          String(foreignAdded),
          path.join(workspace, fileOf(foreignAdded)),
          String(foreignReplaced),
          path.join(workspace, fileOf(foreignReplaced)),
        ]);
        const warnings = await recover();
        expect(textOf(foreignAdded), outcomes.join(" ")).toBe(`foreign ${foreignAdded}\n`);
        expect(textOf(foreignReplaced), outcomes.join(" ")).toBe(`foreign ${foreignReplaced}\n`);
        expect(warnings).toContain(fileOf(foreignAdded));
        expect(warnings).toContain(fileOf(foreignReplaced));
        // Positive control: the change's own files still new were taken back.
        expect(textOf(ownAdded)).toBeUndefined();
        expect(textOf(ownReplaced)).toBe(`old ${ownReplaced}\n`);
        for (let i = 0; i < CHANGE.files; i++) {
          if (i === foreignAdded || i === foreignReplaced) continue;
          expect(textOf(i), `${fileOf(i)} ${outcomes.join(" ")}`).toBe(i % 2 === 1 ? undefined : `old ${i}\n`);
        }
        expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
        return;
      }
      throw new Error(`no kill landed with two added and two replaced files still new: ${outcomes.join(" ")}`);
    }, 900_000);
  },
);
