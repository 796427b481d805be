/**
 * A change killed while it took itself back (its log `reverting`) had deleted a file; another
 * writer then created a file at that path before the recovery. The recovery leaves that file
 * alone (it is not the change's to remove) and now says so, with the warning it gives for a file
 * another writer wrote (ATC_RECOVERY_LEFT_FOREIGN_FILE): before, it took the file for the delete
 * not made and dropped the old content untold. The reverting record says which deletes were made
 * (`IntentEntry.written: ""`), which it did not.
 *
 * Real processes, as recovery-foreign-writes: a target made immutable (`chattr +i`, needs root:
 * skipped otherwise, and says so) fails the rename pass part way after the delete (d0 sorts before
 * the stuck d8); the change (a child) is killed with SIGKILL the moment its log says `reverting`;
 * a second process (`sh`) creates the file; a recovery runs in a third. Positive control: the
 * change's other files are taken back, untold.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { nodeChild } from "../support/child-entry.js";
import { leftBehind } from "./support/left-behind.js";
import {
  CHANGE,
  changeScript,
  fileOf,
  recoverInNewProcess,
  repo,
  seedChange,
  startWatcher,
  textOf as textIn,
  unstick as unstickIn,
} from "./support/stuck-change.js";

const killer = path.join(repo, "test/tools/support/kill-at-reverting.mjs");
/** Kills tried until one lands before the change put the deleted file back itself. */
const ATTEMPTS = 6;
const DELETED = "d0/gone.txt";
const root = process.getuid?.() === 0;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-foreign-after-delete-"));
});
afterEach(() => {
  if (root) unstickIn(workspace);
  rmSync(workspace, { recursive: true, force: true });
});

/** The change (CHANGE's files, and DELETED deleted) in a child, killed when its log first says `reverting`. */
async function changeKilledReverting(intents: string): Promise<NodeJS.Signals | null> {
  mkdirSync(intents, { recursive: true, mode: 0o700 });
  const watcher = await startWatcher(killer, [intents]);
  const entry = nodeChild(changeScript, [JSON.stringify({ workspace, ...CHANGE, extra: [`*** Delete File: ${DELETED}`] })]);
  const child = spawn(process.execPath, entry.args, { cwd: repo, env: entry.env, stdio: ["ignore", "ignore", "inherit"] });
  watcher.tell(child.pid as number);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
  await watcher.end();
  return signal;
}

/** The DELETED entry of the workspace's `reverting` log, if there is one. */
function deletedEntry(intents: string): { written?: string; restore?: string } | undefined {
  for (const name of readdirSync(intents).filter((file) => file.endsWith(".json"))) {
    const record = JSON.parse(readFileSync(path.join(intents, name), "utf8")) as {
      state: string;
      entries: { name: string; temporary?: string; written?: string; restore?: string }[];
    };
    if (record.state !== "reverting") continue;
    return record.entries.find((entry) => entry.name === "gone.txt" && entry.temporary === undefined);
  }
  return undefined;
}

describe.skipIf(!root)("recovery after a delete another writer undid (needs root: chattr +i)", () => {
  it("a file created at the deleted path after the kill is kept and told; the change's own files are taken back", async () => {
    const intents = intentDirectory(await realpath(workspace));
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      seedChange(workspace, true);
      writeFileSync(path.join(workspace, DELETED), "old gone\n");
      const signal = await changeKilledReverting(intents);
      unstickIn(workspace);
      const entry = deletedEntry(intents);
      const restore = entry?.restore === undefined ? undefined : path.join(workspace, "d0", entry.restore);
      const deleted = !existsSync(path.join(workspace, DELETED));
      outcomes.push(`${attempt}:${signal ?? "exit"}:logged ${entry !== undefined}:deleted ${deleted}`);
      if (signal !== "SIGKILL" || entry === undefined) continue;
      // The record says the delete was made (the rename pass reached d8 after d0).
      expect(entry, outcomes.join(" ")).toMatchObject({ written: "", restore: expect.any(String) });
      // The change put the old content back itself before the kill: nothing of it left to take back.
      if (!deleted || restore === undefined || !existsSync(restore)) continue;
      execFileSync("sh", ["-c", `printf 'foreign gone\\n' > "$1"`, "sh", path.join(workspace, DELETED)]);
      const warnings = (await recoverInNewProcess(workspace)).stderr;
      expect(readFileSync(path.join(workspace, DELETED), "utf8")).toBe("foreign gone\n");
      expect(warnings).toContain("ATC_RECOVERY_LEFT_FOREIGN_FILE");
      expect(warnings).toContain(DELETED);
      expect(warnings).toContain("did not put its content from before the change back");
      // Positive control: every other file is as before the change, and none of them is told.
      for (let i = 0; i < CHANGE.files; i++) {
        expect(textIn(workspace, i), `${fileOf(i)} ${outcomes.join(" ")}`).toBe(i % 2 === 1 ? undefined : `old ${i}\n`);
        expect(warnings).not.toContain(`${fileOf(i)}"`);
      }
      expect(await leftBehind(workspace)).toEqual({ temporaries: [], logged: [] });
      return;
    }
    throw new Error(`no kill landed before the change put the deleted file back: ${outcomes.join(" ")}`);
  }, 900_000);
});
