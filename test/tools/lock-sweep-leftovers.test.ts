/**
 * The sweep's leftovers (src/tools/fs/lock-sweep.ts): an intent log cut short by a crash (it does
 * not parse) and a `.next` file (a kept or replacing log whose rename a crash prevented) name
 * their owner by the pid in their file name only, so its namespace cannot be told: they are
 * removed as an older version's state is, once an hour old and that pid dead here, even in an
 * intent directory where no parsed log names the workspace (before, they stayed for ever there).
 * Kept: the same under an hour old, and a live pid's (this process's) at any age.
 */

import { utimesSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sweepStaleState } from "../../src/tools/fs/lock-sweep.js";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";

const HOUR = 60 * 60_000;
/** A pid no process has (above the kernel's pid_max). */
const DEAD_PID = 4_194_400;

let base: string;
let restoreEnv: () => void;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-lock-leftovers-"));
  restoreEnv = saveStateDirectoryEnv();
});
afterAll(async () => {
  restoreEnv();
  await rm(base, { recursive: true, force: true });
});

describe("the sweep's leftovers: unparsable logs and .next files", () => {
  it("removes a dead pid's once an hour old; keeps younger ones and a live pid's", async () => {
    const locks = path.join(base, "locks");
    const intents = path.join(base, "state", "intents");
    // The sweep's removals take the workspace's recovery lock in this lock directory; its stamp
    // keeps the background sweep that lock starts from sweeping the same directory meanwhile.
    await mkdir(path.join(locks, "sweep.stamp"), { recursive: true, mode: 0o700 });
    process.env.AGENT_TOOL_CATALOG_LOCK_DIR = locks;
    process.env.AGENT_TOOL_CATALOG_STATE_DIR = path.join(base, "state");
    try {
      const directory = path.join(intents, "0123456789abcdef0123456789abcdef");
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const file = async (name: string, content: string, ageMs: number) => {
        await writeFile(path.join(directory, name), content, { mode: 0o600 });
        const when = new Date(Date.now() - ageMs);
        utimesSync(path.join(directory, name), when, when);
        return name;
      };
      const cutShort = '{"owner":"4194400:1:4026531836","root":"/gone","sta';
      const removed = [
        await file(`${DEAD_PID}-aaaaaaaaaaaa.json`, cutShort, 2 * HOUR),
        await file(`${DEAD_PID}-bbbbbbbbbbbb.json.next`, "{}", 2 * HOUR),
        await file(`abandoned-${DEAD_PID}-cccccccccccc.json`, "", 2 * HOUR),
      ];
      const young = [
        await file(`${DEAD_PID}-dddddddddddd.json`, cutShort, 30 * 60_000),
        await file(`${DEAD_PID}-eeeeeeeeeeee.json.next`, "{}", 30 * 60_000),
      ];
      const live = [
        await file(`${process.pid}-ffffffffffff.json`, cutShort, 2 * HOUR),
        await file(`${process.pid}-000000000000.json.next`, "{}", 2 * HOUR),
      ];
      const report = await sweepStaleState({ locks, intents });
      expect((await readdir(directory)).sort()).toEqual([...young, ...live].sort());
      expect(report.leftoversRemoved).toBe(removed.length);

      // Once the younger ones are an hour old too, they go; the live pid's stay.
      for (const name of young) {
        const when = new Date(Date.now() - 2 * HOUR);
        utimesSync(path.join(directory, name), when, when);
      }
      const again = await sweepStaleState({ locks, intents });
      expect(again.leftoversRemoved).toBe(2);
      expect((await readdir(directory)).sort()).toEqual([...live].sort());
    } finally {
      restoreEnv();
    }
  });
});
