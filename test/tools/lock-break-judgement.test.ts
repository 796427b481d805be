/**
 * A waiter's judgement of a lock it finds held (the on-demand break in
 * src/tools/fs/cross-process-lock.ts), with real processes: a new process of the catalog
 * (lock-take-worker.mjs) takes file locks whose lock files the test wrote by hand, naming real
 * processes (a live `sleep` and one killed and reaped) under faked pid namespaces.
 * - Nothing in a lock's place blocks or misleads it: a FIFO (whose read blocked the waiter for
 *   ever), a symlink to a dead holder's lock, a file over the read bound are not lock files: the
 *   lock is treated as held (never removed: nothing this package wrote or can judge) and the call
 *   answers `file_locked` after its wait, saying the lock is not a lock file.
 * - The sweep's judge (`isSurelyDead`): a holder of another pid namespace, its pid dead here or
 *   running another process here, is never broken; a holder without a namespace (an older
 *   version's) only once an hour old. Positive controls: a dead holder of this namespace is broken
 *   and the lock taken; an old namespace-less dead holder too.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, lstatSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_LOCK_FILE_BYTES } from "../../src/tools/fs/cross-process-lock.js";
import { OWN_PID_NAMESPACE, processStartTime } from "../../src/tools/fs/process-identity.js";
import { stopProcess } from "../support/stop-process.js";

const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/tools/lock-take-worker.mjs");
const HOUR = 60 * 60_000;
/** How long the worker waits for a held lock before it answers `file_locked`. */
const WAIT_MS = 300;
/**
 * How long the worker may take for all its keys (a tsx start at load 20 takes seconds): a waiter
 * blocked on a FIFO never answers at all, which is what this bound tells from a slow one.
 */
const ANSWER_BOUND_MS = 120_000;

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-lock-judgement-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

/** A fresh private lock directory, its sweep claimed already (a fresh stamp): only waiters judge here. */
async function lockDirectory(name: string): Promise<string> {
  const locks = await mkdtemp(path.join(base, `${name}-`));
  await mkdir(path.join(locks, "sweep.stamp"), { mode: 0o700 });
  return locks;
}

/** The lock file of `key` in `locks` (cross-process-lock.ts's `lockFileOf`). */
const lockFileOf = (locks: string, key: string) =>
  path.join(locks, `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.lock`);

/** Writes the lock of `key` held by `holder`, `ageMs` old by mtime; returns its path. */
function writeLock(locks: string, key: string, holder: string, ageMs = 0): string {
  const file = lockFileOf(locks, key);
  writeFileSync(file, `${holder}\n${key}\n`, { mode: 0o600 });
  const when = new Date(Date.now() - ageMs);
  utimesSync(file, when, when);
  return file;
}

interface Answer {
  readonly key: string;
  readonly ok?: true;
  readonly code?: string;
  readonly message?: string;
}

/**
 * Runs lock-take-worker.mjs over `keys` in `locks`; its answers by key. Fails (after killing it)
 * if it has not answered them all within {@link ANSWER_BOUND_MS}.
 */
async function takeInNewProcess(locks: string, keys: readonly string[]): Promise<Map<string, Answer>> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", worker, ...keys], {
    cwd: repo,
    env: { ...process.env, AGENT_TOOL_CATALOG_LOCK_DIR: locks, AGENT_TOOL_CATALOG_LOCK_WAIT_MS: String(WAIT_MS) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr?.on("data", (chunk) => {
    stderr += String(chunk);
  });
  const closed = new Promise<number | null>((resolve) => child.once("close", resolve));
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), ANSWER_BOUND_MS);
  });
  try {
    const outcome = await Promise.race([closed, bound]);
    const answers = new Map(
      stdout
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Answer)
        .map((answer) => [answer.key, answer] as const),
    );
    if (outcome === "hung") {
      throw new Error(`the locker had not answered after ${ANSWER_BOUND_MS} ms; answered: ${[...answers.keys()].join(", ")}`);
    }
    if (outcome !== 0) throw new Error(`the locker exited ${outcome}: ${stderr}`);
    return answers;
  } finally {
    clearTimeout(timer);
    await stopProcess(child);
    await closed;
  }
}

/** A real process, started and killed (and reaped) by the test: its pid and start time name no live process. */
async function deadProcess(): Promise<{ pid: number; start: string }> {
  const child = spawn("sleep", ["600"], { stdio: "ignore" });
  const pid = child.pid as number;
  const start = processStartTime(pid);
  await stopProcess(child);
  expect(start).toMatch(/^\d+$/);
  return { pid, start: start as string };
}

describe("a waiter's judgement of a held lock", () => {
  it("a FIFO, a symlink or a huge file in a lock's place: held, never read through, answered file_locked", {
    timeout: 2 * ANSWER_BOUND_MS,
  }, async () => {
    const locks = await lockDirectory("shapes");
    const own = OWN_PID_NAMESPACE;
    expect(own).toBeDefined();
    const dead = await deadProcess();
    const deadHere = `${dead.pid}:${dead.start}:${own}`;
    const fifo = lockFileOf(locks, "fifo-key");
    execFileSync("mkfifo", ["-m", "600", fifo]);
    // A dead holder's lock elsewhere, linked in a lock's place: read through the link, it was broken
    // (the link removed) on the word of a file that is not the lock.
    const elsewhere = path.join(base, "elsewhere.lock");
    writeFileSync(elsewhere, `${deadHere}\nlink-key\n`, { mode: 0o600 });
    const link = lockFileOf(locks, "link-key");
    symlinkSync(elsewhere, link);
    // A dead holder's identity, then more than a lock file ever holds.
    const huge = lockFileOf(locks, "huge-key");
    writeFileSync(huge, `${deadHere}\n${"k".repeat(MAX_LOCK_FILE_BYTES)}\n`, { mode: 0o600 });

    const answers = await takeInNewProcess(locks, ["fifo-key", "link-key", "huge-key", "free-key"]);
    for (const key of ["fifo-key", "link-key", "huge-key"]) {
      expect(answers.get(key), key).toMatchObject({ code: "file_locked", message: expect.stringContaining("not a lock file") });
    }
    // Positive control: the same process, after them, takes a free lock.
    expect(answers.get("free-key")).toEqual({ key: "free-key", ok: true });
    // Nothing it could not judge was removed.
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(elsewhere, "utf8")).toBe(`${deadHere}\nlink-key\n`);
    expect(lstatSync(huge).size).toBeGreaterThan(MAX_LOCK_FILE_BYTES);
  });

  it("never breaks another pid namespace's holder, dead or running another process here; breaks a dead holder of this one", {
    timeout: 2 * ANSWER_BOUND_MS,
  }, async () => {
    const locks = await lockDirectory("namespaces");
    const own = OWN_PID_NAMESPACE as string;
    expect(own).toMatch(/^\d+$/);
    const other = String(Number(own) + 1);
    const dead = await deadProcess();
    const live = spawn("sleep", ["600"], { stdio: "ignore" });
    try {
      const livePid = live.pid as number;
      const liveStart = processStartTime(livePid) as string;
      expect(liveStart).toMatch(/^\d+$/);
      const held = {
        // Another namespace's holder whose pid is dead here: it may run there.
        "other-dead": writeLock(locks, "other-dead", `${dead.pid}:${dead.start}:${other}`, 2 * HOUR),
        // Another namespace's holder whose pid runs another process here (another start time):
        // in this namespace that is a reused pid, a dead holder; there it may be the holder.
        "other-live-looking": writeLock(locks, "other-live-looking", `${livePid}:1:${other}`, 2 * HOUR),
        // A live holder of this namespace.
        "own-live": writeLock(locks, "own-live", `${livePid}:${liveStart}:${own}`),
        // An older version's holder (no namespace recorded), dead here but not an hour old: it may
        // be a container's, whose pid means nothing here.
        "legacy-recent": writeLock(locks, "legacy-recent", `${dead.pid}:${dead.start}`, 10 * 60_000),
      };
      const contents = Object.fromEntries(Object.entries(held).map(([key, file]) => [key, readFileSync(file, "utf8")]));
      // Positive controls: a dead holder of this namespace (at once, whatever its age), and an
      // older version's dead holder over an hour old.
      const ownDead = writeLock(locks, "own-dead", `${dead.pid}:${dead.start}:${own}`);
      const legacyOld = writeLock(locks, "legacy-old", `${dead.pid}:${dead.start}`, 2 * HOUR);

      const answers = await takeInNewProcess(locks, [...Object.keys(held), "own-dead", "legacy-old"]);
      for (const [key, file] of Object.entries(held)) {
        expect(answers.get(key), key).toMatchObject({
          code: "file_locked",
          message: expect.stringContaining("Another process has held the lock"),
        });
        expect(existsSync(file) ? readFileSync(file, "utf8") : "(removed)", key).toBe(contents[key]);
      }
      expect(answers.get("own-dead")).toEqual({ key: "own-dead", ok: true });
      expect(answers.get("legacy-old")).toEqual({ key: "legacy-old", ok: true });
      // Broken, taken, and released (removed) by the worker.
      expect(existsSync(ownDead)).toBe(false);
      expect(existsSync(legacyOld)).toBe(false);
    } finally {
      await stopProcess(live);
    }
  });
});
