/**
 * Race attempts: a sandboxed bash call (a real background process) swaps a workspace directory
 * with a symbolic link to an outside directory hundreds of times a second, while ls, glob, grep,
 * read and bash run in parallel on that directory. None may ever show the outside. The control is
 * the naive operation on the same path at the same time (a plain readdir / readFile on the host),
 * which does reach the outside, so the race is real.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, quote, type ShellOutcome, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = "atc-race-secret-91c2";
const ATTACK_MS = 1_500;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: races"), () => {
  let ground: Playground;
  let flipper: Promise<ShellOutcome>;
  let run: Run;
  beforeAll(async () => {
    ground = await playground();
    await writeFile(path.join(ground.outside, "secret.txt"), `${SECRET}\n`);
    await mkdir(path.join(ground.workspace, "d"));
    await writeFile(path.join(ground.workspace, "d", "inside.txt"), "inside\n");
    run = attackRun(ground.workspace, "workspace");
    const loop = [
      `ln -s ${quote(ground.outside)} lnk`,
      "n=0",
      "while [ ! -e stop ] && [ $n -lt 200000 ]; do mv -T d d.real; mv -T lnk d; mv -T d lnk; mv -T d.real d; n=$((n+1)); done",
      "echo flips=$n",
    ].join("\n");
    flipper = sh(run, loop, { timeout_seconds: 120 });
    // Wait until the flipper runs.
    for (let tries = 0; tries < 100 && !existsSync(path.join(ground.workspace, "lnk")); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  afterAll(async () => {
    await writeFile(path.join(ground.workspace, "stop"), "");
    const result = await flipper;
    expect(result.stdout).toMatch(/flips=[1-9]/);
    await ground.dispose();
  });

  /** Runs `attack` in parallel batches for ATTACK_MS; returns every answer. */
  async function hammer(attack: () => Promise<string>): Promise<string[]> {
    const answers: string[] = [];
    const end = performance.now() + ATTACK_MS;
    while (performance.now() < end) answers.push(...(await Promise.all(Array.from({ length: 8 }, attack))));
    return answers;
  }

  /** The control: the naive host operation on the same path during the race reaches the outside. */
  function naiveSeesOutside(operation: () => string): boolean {
    const end = performance.now() + ATTACK_MS;
    while (performance.now() < end) {
      try {
        if (operation().includes("secret")) return true;
      } catch {
        // The path is mid-swap.
      }
    }
    return false;
  }

  const directory = () => path.join(ground.workspace, "d");

  escapeAttempt(
    "races",
    "ls a directory being swapped for a symlink",
    async () => {
      const answers = await hammer(async () => outcome(await run.call("ls", { path: "d" })));
      expect(answers.filter((answer) => answer.includes("secret.txt"))).toEqual([]);
      expect(answers.some((answer) => answer.includes("inside.txt"))).toBe(true);
      expect(naiveSeesOutside(() => readdirSync(directory()).join(" "))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "ls the parent recursively while a child is swapped",
    async () => {
      const answers = await hammer(async () => outcome(await run.call("ls", { depth: 3 })));
      expect(answers.filter((answer) => answer.includes("secret.txt"))).toEqual([]);
      expect(naiveSeesOutside(() => readdirSync(directory()).join(" "))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "glob through a directory being swapped",
    async () => {
      const answers = await hammer(async () => outcome(await run.call("glob", { pattern: "**/*.txt" })));
      expect(answers.filter((answer) => answer.includes("secret.txt"))).toEqual([]);
      expect(naiveSeesOutside(() => readdirSync(directory()).join(" "))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "grep (JavaScript engine) through a directory being swapped",
    async () => {
      const js = attackRun(ground.workspace, "workspace", { grep: { engine: "javascript" } });
      const answers = await hammer(async () => outcome(await js.call("grep", { pattern: "secret|inside" })));
      expect(answers.filter((answer) => answer.includes(SECRET))).toEqual([]);
      expect(naiveSeesOutside(() => readFileSync(path.join(directory(), "secret.txt"), "utf8"))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "grep (ripgrep engine) through a directory being swapped",
    async () => {
      const rg = attackRun(ground.workspace, "workspace", { grep: { engine: "ripgrep" } });
      const answers = await hammer(async () => outcome(await rg.call("grep", { pattern: "secret|inside", path: "d" })));
      expect(answers.filter((answer) => answer.includes(SECRET))).toEqual([]);
      expect(naiveSeesOutside(() => readFileSync(path.join(directory(), "secret.txt"), "utf8"))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "read a file through a directory being swapped",
    async () => {
      const answers = await hammer(async () => outcome(await run.call("read", { path: "d/secret.txt" })));
      expect(answers.filter((answer) => answer.includes(SECRET))).toEqual([]);
      expect(naiveSeesOutside(() => readFileSync(path.join(directory(), "secret.txt"), "utf8"))).toBe(true);
    },
    30_000,
  );

  escapeAttempt(
    "races",
    "bash with its cwd in a directory being swapped",
    async () => {
      const answers = await hammer(async () => (await sh(run, "ls; cat secret.txt 2>/dev/null", { cwd: "d" })).text);
      expect(answers.filter((answer) => answer.includes(SECRET) || answer.includes("secret.txt"))).toEqual([]);
      expect(naiveSeesOutside(() => readdirSync(directory()).join(" "))).toBe(true);
    },
    30_000,
  );
});
