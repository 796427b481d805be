/**
 * Round 20: `grep`'s ripgrep runs without the per-command cgroup that bounds a `bash` command's
 * memory ("bounded by ripgrep itself"). It is not: ripgrep holds a whole line in memory, growing
 * its buffer to the longest line it meets, so a file of one long line a command wrote (no NUL, so
 * not skipped as binary) takes ripgrep's memory, a host process's, as far as the line goes
 * (300 MB of `a`: 426 MB resident without a match, 719 MB with one; a 100 MB line 146 MB). Now
 * ripgrep starts with `RLIMIT_DATA` at the sandbox's per-command memory limit, past which its
 * allocation fails and the JavaScript engine answers. The attempt uses a sandbox with a 64 MiB
 * limit, so that a 100 MB line is past it; the control: the same sandbox searches an ordinary tree,
 * and the public `grep` answers over the long line (with the JavaScript engine where ripgrep gave up).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { type GrepQuery, RipgrepUnusableError, searchWithRipgrep } from "../../src/tools/fs/grep-ripgrep.js";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { findTrustedExecutable } from "../../src/tools/sandbox/trusted-executable.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const ripgrep = findTrustedExecutable("rg");

const query: GrepQuery = {
  pattern: "needle",
  ignoreCase: false,
  fixedStrings: false,
  glob: undefined,
  context: 0,
  limit: 100,
  filesOnly: false,
};

const text = (result: ToolCallResult) => (result.ok ? String(result.output) : `${result.error.code}: ${result.error.message}`);

describe.skipIf(bubblewrap.missing || !ripgrep.ok)(bubblewrap.label("escape attempts: round 20, ripgrep's memory"), () => {
  let ground: Playground;
  beforeEach(async () => {
    ground = await playground();
  });
  afterEach(async () => ground.dispose());

  escapeAttempt(
    "resources",
    "grep's ripgrep over a file of one 100 MB line stays within the sandbox's memory limit",
    async () => {
      const executable = ripgrep.ok ? ripgrep.path : "rg";
      const limit = 64 * 1024 * 1024;
      const sandbox = await createProcessSandbox({
        scope: "workspace",
        workspace: ground.workspace,
        limits: { maxMemoryBytes: limit },
      });
      // What a command can write in a second: one line of 100 MB, no NUL (ripgrep does not take it for binary).
      const long = path.join(ground.workspace, "long");
      mkdirSync(long);
      execFileSync("sh", ["-c", `head -c 100000000 /dev/zero | tr '\\0' a > ${path.join(long, "line")}`]);
      const attempt = searchWithRipgrep(sandbox, executable, ground.workspace, long, query, AbortSignal.timeout(30_000));
      // On the old code ripgrep answered "no match" after holding the whole line (146 MB resident).
      await expect(attempt, "ripgrep read the 100 MB line past the 64 MiB limit").rejects.toBeInstanceOf(RipgrepUnusableError);
      // Control: the same sandbox's ripgrep searches an ordinary tree.
      const plain = path.join(ground.workspace, "plain");
      mkdirSync(plain);
      writeFileSync(path.join(plain, "f.txt"), "hay\nneedle\n");
      const found = await searchWithRipgrep(sandbox, executable, ground.workspace, plain, query, AbortSignal.timeout(30_000));
      expect(found.lines.map((line) => line.text)).toEqual(["needle"]);
      // Control through the public tool (default limit: half the machine): grep answers over the long line.
      writeFileSync(path.join(long, "other.txt"), "needle\n");
      const answer = text(await attackRun(ground.workspace, "workspace").call("grep", { pattern: "needle", path: "long" }));
      expect(answer).toContain("other.txt");
    },
    60_000,
  );
});
