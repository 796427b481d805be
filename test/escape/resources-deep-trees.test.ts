/**
 * Escape attempts on the host's time through the shape of the workspace: a sandboxed command
 * makes a chain of directories 700 deep in about a second (each step relative, so no path is
 * ever long inside it), and every later `glob` and `grep` walks it on the host. The confined
 * walk checks each directory's handle through `/proc/self/fd`; resolved with realpath(3), which
 * looks up every prefix of the path in turn, that check made a walk cubic in the depth (5.6 s of
 * the host's CPU per call at 800 deep, minutes near PATH_MAX). Controls: the file at the bottom
 * is found, so the walk went all the way down.
 */
import { describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Python that makes `t/d/d/.../d/needle.txt`, 700 directories below `t`. */
const DEEP_CHAIN =
  'import os\nos.mkdir("t")\nos.chdir("t")\nfor _ in range(700):\n    os.mkdir("d")\n    os.chdir("d")\nopen("needle.txt", "w").write("needle\\n")';

/** The host's CPU time (all threads, the walkers' thread pool included) that `work` took, in ms. */
async function cpuMilliseconds(work: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: deep directory chains vs the host's walkers"), () => {
  let ground: Playground | undefined;

  escapeAttempt(
    "resources",
    "a 700-deep chain of directories makes every confined glob and grep cost the host seconds of CPU",
    async () => {
      ground = await playground();
      try {
        const run = attackRun(ground.workspace, "workspace", { grep: { engine: "javascript" } });
        const built = await sh(run, `python3 -c ${quote(DEEP_CHAIN)} && echo built`, { timeout_seconds: 30 });
        expect(built.stdout).toBe("built");
        const answers: Record<string, string> = {};
        const calls = {
          glob: () => run.call("glob", { pattern: "**/needle.txt" }),
          grep: () => run.call("grep", { pattern: "needle" }),
        };
        for (const [tool, call] of Object.entries(calls)) {
          const cpu = await cpuMilliseconds(async () => {
            const result = await call();
            answers[tool] = result.ok ? String(result.output) : `error:${result.error.code}`;
          });
          // On the old code 3.5-4 s each; now 0.2-0.5 s.
          expect(cpu, tool).toBeLessThan(2_000);
        }
        // Control: the walks reached the bottom.
        expect(answers.glob).toMatch(/(?:d\/){700}needle\.txt/);
        expect(answers.grep).toMatch(/(?:d\/){700}needle\.txt:1:needle/);
      } finally {
        await ground.dispose();
      }
    },
    30_000,
  );
});
