/**
 * A bwrap command aborted while bwrap starts the sandbox leaves nothing running. bwrap's sandbox
 * process (PID 1 of the command's namespace) sets its parent-death signal only after its mounts
 * and its setsid: a launcher killed before then left it orphaned, in its own session, holding the
 * command's output pipes for ever, so a caller reading them to the end never returned (grep's
 * ripgrep, dropped as it started, timed out a test at load 10-15). Aborts are spread over the
 * first tens of milliseconds, where that window falls; the old code left one behind in about one
 * run in seven here, even on an idle machine.
 */

import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import type { ProcessSandbox } from "../../src/tools/sandbox/process-sandbox.js";
import { capability } from "../support/capabilities.js";
import { settleWithin } from "../support/settle-within.js";
import { killUntilGone } from "../support/stop-process.js";

const bubblewrap = capability("bubblewrap");

/** Live processes whose command line names `workspace` (bwrap binds it by path). */
function processesNaming(workspace: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "latin1").includes(workspace)) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("bubblewrap: a command aborted as it starts"), () => {
  let workspace: string;
  let sandbox: ProcessSandbox;
  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-bwrap-abort-")));
    sandbox = await createProcessSandbox({ scope: "workspace", workspace });
  });
  afterAll(async () => {
    // Waited for: a launcher or bwrap still starting may still make its mounts' directories.
    await killUntilGone(() => processesNaming(workspace));
    await rm(workspace, { recursive: true, force: true });
  });

  it("leaves no process behind and its output ends, wherever in bwrap's start the abort falls", async () => {
    const failures: string[] = [];
    for (let run = 0; run < 40; run++) {
      const controller = new AbortController();
      const child = sandbox.spawn({
        command: "/usr/bin/sleep",
        args: ["30"],
        cwd: workspace,
        signal: controller.signal,
        limits: false,
      });
      const delay = run % 20;
      setTimeout(() => controller.abort(), delay);
      child.stderr.resume();
      const closed = new Promise<boolean>((resolve) => child.stdout.on("close", () => resolve(true)).resume());
      await child.exited;
      // The output ends within moments of the exit; 5 s is far above that even at load 15.
      const ended = await settleWithin(closed, 5_000, () => false);
      const left = processesNaming(workspace);
      if (!ended || left.length > 0) failures.push(`abort after ${delay} ms: output ended ${ended}, left ${left.join(",")}`);
      // Gone before the next run, whose count of what is left would otherwise take them for its own.
      await killUntilGone(() => processesNaming(workspace));
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it("positive control: a command not aborted runs to its end and prints", async () => {
    const child = sandbox.spawn({ command: "/usr/bin/echo", args: ["done"], cwd: workspace, limits: false });
    let printed = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      printed += chunk;
    });
    const exit = await child.exited;
    expect(exit.exitCode).toBe(0);
    expect(printed).toBe("done\n");
  });
});
