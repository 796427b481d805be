/**
 * A run's resource budget is kept in its `RunStorage` under a key object. The key was a
 * module-level object, so a process that loads both the ESM and the CommonJS build (one part of
 * the host imports `dist/*.js`, another requires `dist/*.cjs`) had two keys: a child run made by
 * the other copy's registry kept a budget apart from its parent's and ran while the parent held
 * its whole total. Both copies now share one process-wide key, as the file locks and workspace
 * anchors do. Real node process, real builds, real bash commands.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const script = path.join(repo, "test/tools/support/two-format-budget.mjs");
const built = ["dist/index.js", "dist/index.cjs", "dist/tools/index.js", "dist/tools/index.cjs"].every((each) =>
  existsSync(path.join(repo, each)),
);

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-budget-two-formats-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe.skipIf(!built)("the run budget with the ESM and CommonJS builds in one process (needs the build)", () => {
  it("an ESM parent and a CommonJS child share one total: the child is refused while the parent's command holds it, then runs", async () => {
    const { stdout } = await run(process.execPath, [script, repo, workspace]);
    expect(JSON.parse(stdout)).toEqual({
      // Refused: the parent's own command holds the whole total the child draws on.
      whileHeld: "run_limit_reached",
      parent: "ran",
      // Control: with the parent's command ended, the same child command runs.
      afterwards: "ran",
    });
  }, 60_000);
});
