/**
 * Red team round 34: what the file tools are given to walk and read by a command.
 *
 * - 30,000 hard links to one empty file in one directory, with 23-byte names (made by a sandboxed
 *   command; 100,000 plain files cost a minute of CPU here, and 30,000 such names still make every
 *   unbounded listing several times the answer bound): `ls`, `glob` and `grep`
 *   (both engines) over them. Held when each answers, its answer bounded (it says what it left
 *   out rather than listing every name), and the host lives on.
 * - A file a parallel command keeps growing while the tools read it (`yes` appending to it on a
 *   64 MiB tmpfs, the file cut and refilled when the tmpfs is full, so it grows for as long as the
 *   calls last without filling the machine's disk): `read`, `grep` (both engines), `glob`, `ls`
 *   and `file_inspect`-free calls. Held when each call answers while the writer still writes (a
 *   reader that chased the end of the file would never end) and its answer is bounded. Needs root
 *   (to mount the tmpfs).
 *
 * Controls: the files are there (the command counts them, a glob names one of them); the writer
 * did grow the file during the calls (its cycle count, the size seen by the host).
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const isRoot = process.getuid?.() === 0;
/** An answer longer than this lists what it should have bounded. */
const ANSWER_BOUND = 256 * 1024;

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 120_000) throw new Error(`not seen within 120 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many times the writer has cut and refilled its file so far (0 before it says). */
function cycles(workspace: string): number {
  try {
    return Number(readFileSync(path.join(workspace, "cycles-r34"), "utf8").trim()) || 0;
  } catch {
    return 0;
  }
}

describe.skipIf(bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 34, floods of files and a file that keeps growing"),
  () => {
    // Each attempt has a workspace of its own: every sandboxed spawn walks the workspace (set-id
    // and linked files), so calls made beside the flood would each pay for that walk.
    let ground: Playground;
    let growGround: Playground;
    let mounted: string | undefined;
    beforeAll(async () => {
      ground = await playground();
      growGround = await playground();
    });
    afterAll(async () => {
      if (mounted !== undefined) spawnSync("umount", [mounted]);
      await growGround.dispose();
      await ground.dispose();
    });

    escapeAttempt(
      "resources",
      "30,000 hard-linked names made by a command: ls, glob and grep (ripgrep and JavaScript) answer, bounded",
      async () => {
        const made = await sh(
          attackRun(ground.workspace, "workspace"),
          // Hard links to one empty file: one system call per name instead of touch's three (xargs
          // touch where python3 is missing). The JavaScript engine refuses a hard-linked file by
          // name: its list of files not searched was unbounded (6.8 MB for 100,000), now bounded.
          "mkdir many && cd many && : > ../e1 && " +
            "{ python3 -c \"import os\nfor i in range(1, 30001): os.link('../e1', 'flood-entry-name-%06d' % i)\" " +
            "|| seq -f 'flood-entry-name-%06g' 1 30000 | xargs touch; } && ls -f | wc -l",
          { timeout_seconds: 600 },
        );
        expect(made.stdout.trim()).toBe("30002");
        const run = attackRun(ground.workspace, "workspace");
        const answers: [string, string][] = [
          ["ls", outcome(await run.call("ls", { path: "many" }))],
          ["glob all", outcome(await run.call("glob", { pattern: "**/*" }))],
          ["glob many", outcome(await run.call("glob", { pattern: "many/f*" }))],
        ];
        for (const engine of ["ripgrep", "javascript"] as const) {
          const grep = attackRun(ground.workspace, "workspace", { grep: { engine } });
          answers.push([`grep ${engine}`, outcome(await grep.call("grep", { pattern: "x" }))]);
        }
        for (const [name, answer] of answers) {
          expect(answer.length, name).toBeLessThan(ANSWER_BOUND);
          expect(answer, name).not.toMatch(/^error:(internal|tool_failed)/);
        }
        // The listings that name files say they stopped (30,000 such names do not fit the bound).
        for (const [name, answer] of answers.slice(0, 3))
          expect((answer.match(/flood-entry-name-\d{6}/g) ?? []).length, name).toBeLessThan(30_000);
        // Control: the files are there, and a narrow glob finds one.
        expect(outcome(await run.call("glob", { pattern: "many/flood-entry-name-015000" }))).toContain("flood-entry-name-015000");
      },
      900_000,
    );

    describe.skipIf(!isRoot)("a file that keeps growing (needs root to mount a tmpfs)", () => {
      escapeAttempt(
        "resources",
        "a file a parallel command keeps growing (yes, cut and refilled): read, grep (both engines), glob, ls answer while it grows",
        async () => {
          const directory = path.join(growGround.workspace, "grow");
          await mkdir(directory);
          const mount = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64m", "tmpfs", directory]);
          expect(mount.status, String(mount.stderr)).toBe(0);
          mounted = directory;
          const file = path.join(directory, "f");
          const stop = path.join(growGround.workspace, "stop-r34");
          const writer = sh(
            attackRun(growGround.workspace, "workspace"),
            `n=0; until [ -e stop-r34 ]; do yes 'r34 growing line' >> grow/f 2>/dev/null; : > grow/f; n=$((n+1)); echo $n > cycles-r34; done; echo cycles=$n`,
            { timeout_seconds: 600 },
          );
          let writing = true;
          void writer.finally(() => {
            writing = false;
          });
          try {
            await until(() => existsSync(file) && statSync(file).size > 1024 * 1024, "the writer's file past 1 MiB");
            const run = attackRun(growGround.workspace, "workspace");
            const calls: [string, () => Promise<string>][] = [
              ["read", async () => outcome(await run.call("read", { path: "grow/f" }))],
              ["read offset", async () => outcome(await run.call("read", { path: "grow/f", offset: 100_000, limit: 50 }))],
              ["glob", async () => outcome(await run.call("glob", { pattern: "grow/*" }))],
              ["ls", async () => outcome(await run.call("ls", { path: "grow" }))],
            ];
            for (const engine of ["ripgrep", "javascript"] as const) {
              const grep = attackRun(growGround.workspace, "workspace", { grep: { engine } });
              calls.push([`grep ${engine}`, async () => outcome(await grep.call("grep", { pattern: "growing", path: "grow" }))]);
            }
            for (const [name, call] of calls) {
              const answer = await call();
              // Answered while the writer still writes: it did not read after the end of the file forever.
              expect(writing, name).toBe(true);
              expect(answer.length, name).toBeLessThan(ANSWER_BOUND);
              expect(answer, name).not.toMatch(/^error:(internal|tool_failed)/);
            }
            // Reads go on until the writer has cut and refilled the file twice (a loaded machine slows it).
            for (let extra = 0; extra < 200 && cycles(growGround.workspace) < 2; extra++) {
              const answer = outcome(await run.call("read", { path: "grow/f" }));
              expect(writing, `read again ${extra}`).toBe(true);
              expect(answer.length, `read again ${extra}`).toBeLessThan(ANSWER_BOUND);
            }
          } finally {
            writeFileSync(stop, "");
            // The command stops and its call ends before anything else (also when an assertion failed).
            await writer.catch(() => undefined);
          }
          const wrote = await writer;
          // Control: the file was grown, cut and grown again while the calls read it.
          expect(Number(/cycles=(\d+)/.exec(wrote.stdout)?.[1] ?? 0)).toBeGreaterThan(1);
        },
        900_000,
      );
    });
  },
);
