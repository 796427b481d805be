/**
 * Red team round 34: the git tools read a repository that a parallel sandboxed command keeps
 * changing under them.
 *
 * - Its objects move while the tools read them: the command packs every loose object
 *   (`git repack -adn`), then explodes the pack into loose objects (unpacked elsewhere, copied in)
 *   and removes it, over and over. Every object is always somewhere (git's own order: the new
 *   place is written before the old is removed), so a reader that looks again finds it. Held when every answer that is not an
 *   error is the answer the quiet repository gave (the same commits, ids, lines), never a history
 *   cut short or "no commits yet", and every error is a tool error with a code (no crash).
 * - Its `packed-refs` grows without end while the tools resolve a tag only it holds: the command
 *   appends lines to it (`yes`, 160 MB at a time, past the readers' 128 MiB bound) and puts the
 *   original back as git writes it (a new file renamed over the old), over and over. Held when each answer is the quiet one or `too_large`, and
 *   every call answers while the command still writes.
 *
 * Controls: the command did move the objects (packs made and removed during the calls) and grew
 * the file (its cycle count), and the quiet answers hold the repository's commits.
 */
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { git } from "../git/support/git-fixture.js";
import { gitRun } from "../git/support/git-run.js";
import { importCommits } from "../git/support/import-commits.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type GitToolCall, gitToolCalls } from "./support/git-tool-calls.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const gitCapability = capability("git");
const AUTHOR = { name: "R34", email: "r34@example.com" };

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 20) {
    if (waited > 120_000) throw new Error(`not seen within 120 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A file's text, or "" when it is not there (yet). */
function readFileSafe(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

/** Each call's answer (text, or `error:<code>`) in a fresh git run under `workspace`. */
async function answers(workspace: string, calls: readonly GitToolCall[]): Promise<string[]> {
  const run = gitRun(workspace, {}, "workspace");
  const texts: string[] = [];
  for (const [name, input] of calls) {
    const result = await run.call(name, input);
    texts.push(result.ok ? JSON.stringify(result.output) : `error:${result.error.code}`);
  }
  return texts;
}

describe.skipIf(bubblewrap.missing || gitCapability.missing)(
  bubblewrap.label("escape attempts: round 34, a repository changed under the git tools"),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
      git(ground.workspace, ["init", "-q", "-b", "main"]);
      // One fast-import, not 30 `git add` and `git commit`; loose objects, as those write them (the
      // command packs them first).
      const commits = Array.from({ length: 30 }, (_, at) => ({
        message: `commit r34 ${at + 1}`,
        author: AUTHOR,
        write: [["file.txt", `line ${at + 1}\n${"filler\n".repeat(at + 1)}`]] as const,
      }));
      importCommits(ground.workspace, commits, { loose: true });
      expect(readdirSync(path.join(ground.workspace, ".git", "objects", "pack"))).toEqual([]);
      git(ground.workspace, ["tag", "v1", "HEAD~3"]);
      git(ground.workspace, ["pack-refs", "--all"]);
    });
    afterAll(async () => {
      await ground.dispose();
    });

    escapeAttempt(
      "races",
      "objects packed and exploded back to loose objects over and over while every git tool reads them",
      async () => {
        const calls: GitToolCall[] = [...gitToolCalls("r34 17", "file.txt"), ["git_diff_range", { from: "HEAD~20" }]];
        const quiet = await answers(ground.workspace, calls);
        expect(quiet[0]).toContain("commit r34 17");
        expect(quiet[1]).toContain("commit r34 30");
        const stop = path.join(ground.workspace, ".stop-objects");
        const mover = sh(
          attackRun(ground.workspace, "workspace"),
          [
            "n=0",
            "until [ -e .stop-objects ]; do",
            "  git repack -adnq || break",
            "  rm -rf /tmp/o && mkdir /tmp/o || break",
            "  for p in .git/objects/pack/*.pack; do GIT_OBJECT_DIRECTORY=/tmp/o git unpack-objects -q < $p || break 2; done",
            "  cp -r /tmp/o/. .git/objects/ || break",
            '  for p in .git/objects/pack/*.pack; do rm -f "$(dirname $p)/$(basename $p .pack).idx" $p; done',
            "  n=$((n+1)); echo $n > .cycles-objects",
            "done",
            "echo cycles=$n",
          ].join("\n"),
          { timeout_seconds: 900 },
        );
        let moving = true;
        void mover.finally(() => {
          moving = false;
        });
        const seen: string[] = [];
        try {
          const packs = path.join(ground.workspace, ".git", "objects", "pack");
          await until(() => readdirSync(packs).some((name) => name.endsWith(".pack")), "a pack made by the command");
          const cycles = () => Number(readFileSafe(path.join(ground.workspace, ".cycles-objects")) || 0);
          // At least six rounds, and on until the command has moved the objects twice (a loaded machine slows it).
          for (let round = 0; (round < 6 || cycles() < 2) && round < 200 && moving; round++) {
            const during = await answers(ground.workspace, calls);
            during.forEach((answer, index) => {
              seen.push(answer.startsWith("error:") ? answer : "same");
              if (answer.startsWith("error:")) expect(answer, `${calls[index]?.[0]}`).not.toMatch(/internal|tool_failed/);
              else expect(answer, `${calls[index]?.[0]} round ${round}`).toBe(quiet[index]);
            });
          }
        } finally {
          writeFileSync(stop, "");
          // The command stops and its call ends before anything else (also when an assertion failed).
          await mover.catch(() => undefined);
        }
        const moved = await mover;
        await rm(stop, { force: true });
        await rm(path.join(ground.workspace, ".cycles-objects"), { force: true });
        // Control: the objects did move while the tools read (packed and exploded at least twice).
        expect(Number(/cycles=(\d+)/.exec(moved.stdout)?.[1] ?? 0), moved.text).toBeGreaterThan(1);
        expect(seen.length).toBeGreaterThan(0);
      },
      900_000,
    );

    escapeAttempt(
      "resources",
      "packed-refs grown without end (160 MB at a time, put back, again) while a tag only it holds is resolved",
      async () => {
        const calls: GitToolCall[] = [
          ["git_diff_range", { from: "v1" }],
          ["git_file_history", { path: "file.txt", ref: "v1" }],
        ];
        const quiet = await answers(ground.workspace, calls);
        expect(quiet[0]).toContain("file.txt");
        const packedRefs = path.join(ground.workspace, ".git", "packed-refs");
        const stop = path.join(ground.workspace, ".stop-refs");
        const id = git(ground.workspace, ["rev-parse", "v1"]).trim();
        const grower = sh(
          attackRun(ground.workspace, "workspace"),
          [
            "cp .git/packed-refs /tmp/packed.orig; n=0",
            "until [ -e .stop-refs ]; do",
            `  yes '${id} refs/tags/r34-grown' | head -c 160000000 >> .git/packed-refs`,
            // Put back as git writes it (a new file renamed over the old): a reader never sees it cut.
            "  cp /tmp/packed.orig .git/r34tmp && mv .git/r34tmp .git/packed-refs; n=$((n+1))",
            "done",
            "echo cycles=$n",
          ].join("\n"),
          { timeout_seconds: 900 },
        );
        let growing = true;
        void grower.finally(() => {
          growing = false;
        });
        const seen: string[] = [];
        try {
          await until(() => existsSync(packedRefs) && statSync(packedRefs).size > 1024 * 1024, "packed-refs past 1 MiB");
          for (let round = 0; round < 6; round++) {
            const during = await answers(ground.workspace, calls);
            expect(growing, `round ${round}`).toBe(true);
            during.forEach((answer, index) => {
              seen.push(answer.startsWith("error:") ? answer : "same");
              if (answer.startsWith("error:")) expect(answer, `${calls[index]?.[0]}`).toBe("error:too_large");
              else expect(answer, `${calls[index]?.[0]} round ${round}`).toBe(quiet[index]);
            });
          }
        } finally {
          writeFileSync(stop, "");
          // The command stops and its call ends before anything else (also when an assertion failed).
          await grower.catch(() => undefined);
        }
        const grown = await grower;
        await rm(stop, { force: true });
        expect(Number(/cycles=(\d+)/.exec(grown.stdout)?.[1] ?? 0), grown.text).toBeGreaterThan(0);
        expect(seen.length).toBe(12);
      },
      900_000,
    );
  },
);
