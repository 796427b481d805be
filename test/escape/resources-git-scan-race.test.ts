/**
 * Escape attempt at the host's event loop through the git-state scan that runs on the host before
 * every sandboxed command: a command of the run (here a parallel `bash` call) swaps a nested
 * `.git` pointer file for a named pipe and back as fast as it can, while the run starts more
 * commands. Read by path after a check, the pipe swapped in between blocked the host's thread in
 * `open` until some signal came (every run of the process frozen). Controls: a pointer file there
 * is still followed (its git directory protected), and a plain read of the pipe does block.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitProtection } from "../../src/tools/sandbox/git-protection.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Nested directories whose `.git` the flipper swaps. */
const NESTED = 8;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: the git scan on the host's thread"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  escapeAttempt(
    "resources",
    "a nested .git swapped for a named pipe during the scan blocks the host's event loop",
    async () => {
      const run = attackRun(ground.workspace, "workspace");
      // The model's flipper: each nested .git is, in turn, a gitdir pointer and a named pipe (hard
      // links renamed over it, so it is never missing), for 4 s.
      const flipper = sh(
        run,
        `python3 -c "
import os, time
os.makedirs('x', exist_ok=True)
open('pointer', 'w').write('gitdir: ../x\\n')
os.mkfifo('pipe')
names = ['n%d' % i for i in range(${NESTED})]
for name in names: os.makedirs(name, exist_ok=True)
end = time.time() + 4
while time.time() < end:
    for source in ('pointer', 'pipe'):
        for name in names:
            os.link(source, 'tmp'); os.rename('tmp', name + '/.git')
for name in names: os.link('pointer', 'tmp'); os.rename('tmp', name + '/.git')
print('flipped')
"`,
      );
      // The host's event loop, sampled every 20 ms: its longest gap while the run starts commands.
      let last = performance.now();
      let longest = 0;
      const beat = setInterval(() => {
        const now = performance.now();
        longest = Math.max(longest, now - last);
        last = now;
      }, 20);
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const started = performance.now();
        let commands = 0;
        // A command may be refused while the workspace is mid-swap (the scan fails closed); the
        // host's thread must never wait on the pipe.
        while (performance.now() - started < 3_000) {
          await sh(run, "echo ran");
          commands++;
        }
        expect((await flipper).stdout).toContain("flipped");
        expect(commands).toBeGreaterThan(1);
        expect(longest, "the host's event loop stalled").toBeLessThan(1_500);
      } finally {
        clearInterval(beat);
        await flipper.catch(() => undefined);
      }
    },
    20_000,
  );

  it("control: a nested .git pointer file is still followed by the scan", () => {
    const workspace = path.join(ground.workspace, "control");
    mkdirSync(path.join(workspace, "nested"), { recursive: true });
    mkdirSync(path.join(workspace, "gitdir", "hooks"), { recursive: true });
    writeFileSync(path.join(workspace, "gitdir", "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(workspace, "nested", ".git"), "gitdir: ../gitdir\n");
    expect(gitProtection(workspace).args.join(" ")).toContain(`--ro-bind ${path.join(workspace, "gitdir", "hooks")}`);
    // A named pipe in its place is skipped, and a plain read of it blocks (in a child process).
    const fifo = path.join(ground.outside, "pipe");
    spawnSync("mkfifo", [fifo]);
    const plain = spawnSync(process.execPath, ["-e", `require("fs").readFileSync(${JSON.stringify(fifo)})`], { timeout: 1_000 });
    expect(plain.signal).toBe("SIGTERM");
  });
});
