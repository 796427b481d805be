/**
 * Stop 50: the recovery of a change killed while it took itself back (its log `reverting`) undoes
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
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
const killer = path.join(repo, "test/tools/support/kill-at-reverting.mjs");
const recoverer = path.join(repo, "test/tools/support/swap-race-patch.mjs");
const CHANGE = { limit: 1024, dirs: 20, files: 50 } as const;
/** The target whose rename fails (in d8, renamed after d0..d7 and d10..d19). */
const STUCK = "d8/f8.txt";
/** Kills tried until one lands with two added and two replaced files still new. */
const ATTEMPTS = 6;
const root = process.getuid?.() === 0;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-foreign-after-kill-"));
});
function unstick(): void {
  try {
    execFileSync("chattr", ["-i", path.join(workspace, STUCK)], { stdio: "ignore" });
  } catch {}
}
afterEach(() => {
  if (root) unstick();
  rmSync(workspace, { recursive: true, force: true });
});

function seed(): void {
  unstick();
  rmSync(workspace, { recursive: true, force: true });
  for (let d = 0; d < CHANGE.dirs; d++) mkdirSync(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < CHANGE.files; i += 2) writeFileSync(path.join(workspace, `d${i % CHANGE.dirs}`, `f${i}.txt`), `old ${i}\n`);
  execFileSync("chattr", ["+i", path.join(workspace, STUCK)]);
}

const fileOf = (i: number) => `d${i % CHANGE.dirs}/f${i}.txt`;
function textOf(i: number): string | undefined {
  try {
    return readFileSync(path.join(workspace, fileOf(i)), "utf8");
  } catch {
    return undefined;
  }
}

/** The change in a child, killed when its log first says `reverting`. */
async function changeKilledReverting(): Promise<{ said: string; signal: NodeJS.Signals | null }> {
  const intents = intentDirectory(await realpath(workspace));
  mkdirSync(intents, { recursive: true, mode: 0o700 });
  const watcher = spawn(process.execPath, [killer, intents], { stdio: ["pipe", "pipe", "inherit"] });
  let said = "";
  const watcherEnded = new Promise((resolve) => watcher.once("exit", resolve));
  await new Promise<void>((resolve) =>
    watcher.stdout.on("data", (chunk) => {
      said += String(chunk);
      if (said.includes("watching")) resolve();
    }),
  );
  const entry = nodeChild(script, [JSON.stringify({ workspace, ...CHANGE })]);
  const child = spawn(process.execPath, entry.args, { cwd: repo, env: entry.env, stdio: ["ignore", "ignore", "inherit"] });
  watcher.stdin.end(`${child.pid}\n`);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.once("exit", (_code, sig) => resolve(sig)));
  watcher.kill("SIGTERM");
  await watcherEnded;
  return { said: said.replace("watching\n", "").trim(), signal };
}

/** A recovery in a new process (its `ls` runs the workspace's recovery first); its stderr (warnings). */
function recover(): Promise<string> {
  const child = nodeChild(recoverer, [JSON.stringify({ workspace, dirs: CHANGE.dirs, recover: true })]);
  return new Promise((resolve, reject) =>
    execFile(process.execPath, child.args, { cwd: repo, env: child.env, timeout: 120_000 }, (error, _stdout, stderr) =>
      error ? reject(error) : resolve(stderr),
    ),
  );
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
