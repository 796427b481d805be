/**
 * Escape attempts on the host's memory through a command's output and on the host's clean-up
 * through special files: a line of 256 MiB without a newline (a naive capture holds it whole,
 * twice as a string), and a named pipe left where the host removes a control file (a removal that
 * opened it would wait for a writer forever). Controls: the output's head and tail are kept, and a
 * control file created as a plain file is removed too.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(
  bubblewrap.label("escape attempts: output floods and special files at the call's end"),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
    });
    afterAll(async () => ground.dispose());

    escapeAttempt(
      "resources",
      "a 256 MiB line without a newline on stdout: the host's memory grows by less than 96 MiB",
      async () => {
        const before = process.memoryUsage().rss;
        let peak = before;
        const sampler = setInterval(() => {
          peak = Math.max(peak, process.memoryUsage().rss);
        }, 10);
        try {
          const result = await sh(
            attackRun(ground.workspace, "workspace"),
            "head -c 268435456 /dev/zero | tr '\\0' a; echo -n END",
            {
              timeout_seconds: 60,
            },
          );
          peak = Math.max(peak, process.memoryUsage().rss);
          expect(result.status).toBe("exit code 0");
          // Control: the head and the tail are there, with the cut between them.
          expect(result.text).toContain("[output over the limit was cut]");
          expect(result.text).toMatch(/^[^\n]*\nstdout:\naaaa/);
          expect(result.text).toContain("aaaEND\n[output over the limit was cut]");
        } finally {
          clearInterval(sampler);
        }
        expect(peak - before).toBeLessThan(96 * 1024 * 1024);
      },
      60_000,
    );

    escapeAttempt(
      "resources",
      "a named pipe left in place of an absent git control file: the host's removal does not wait on it",
      async () => {
        execFileSync("git", ["init", "-q", ground.workspace]);
        const started = performance.now();
        const result = await sh(
          attackRun(ground.workspace, "workspace"),
          "mkfifo .git/commondir && touch .git/gitdir && echo made",
        );
        expect(result.stdout).toBe("made");
        expect(performance.now() - started).toBeLessThan(10_000);
        expect(existsSync(path.join(ground.workspace, ".git", "commondir"))).toBe(false);
        // Control: the plain file created beside it is removed the same way, and both are named.
        expect(existsSync(path.join(ground.workspace, ".git", "gitdir"))).toBe(false);
        expect(result.text).toContain(".git/commondir");
        expect(result.text).toContain(".git/gitdir");
      },
      20_000,
    );
  },
);
