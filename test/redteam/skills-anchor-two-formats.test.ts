/**
 * `workspaceSkillsDirectory` records that its path anchors at the workspace. The record lived in a
 * module-level map, so a process that loads both the ESM and the CommonJS build (one part of the
 * host imports `dist/*.js`, another requires `dist/*.cjs`) had two maps: a store made by the other
 * copy anchored at the skills directory itself and followed `.myapp/skills` already linked to a
 * host folder at first use. Both copies now share one process-wide record.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, symlink } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { temporaryDirectory } from "../host/support/host-test-kit.js";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const script = path.join(repo, "test/redteam/support/two-format-anchor.mjs");
const built = existsSync(path.join(repo, "dist/host/index.cjs")) && existsSync(path.join(repo, "dist/host/index.js"));

let root: { path: string; remove(): Promise<void> };
let workspace: string;
let outside: string;
beforeEach(async () => {
  root = await temporaryDirectory("skills-two-formats-");
  workspace = path.join(root.path, "workspace");
  outside = path.join(root.path, "outside");
  await mkdir(workspace, { recursive: true });
  await mkdir(outside, { recursive: true });
});
afterEach(() => root.remove());

async function bothFormats(order: string): Promise<{ crossed: string; same: string }> {
  const { stdout } = await run(process.execPath, [script, repo, workspace, "myapp"], {
    env: { ...process.env, ANCHOR_ORDER: order },
  });
  return JSON.parse(stdout) as { crossed: string; same: string };
}

describe.skipIf(!built)("the workspace anchor with the ESM and CommonJS builds in one process (needs the build)", () => {
  for (const order of ["esm-then-cjs", "cjs-then-esm"]) {
    it(`${order}: .myapp/skills already a link at first use is refused by either copy's store; nothing written outside`, async () => {
      await mkdir(path.join(workspace, ".myapp"), { recursive: true });
      await symlink(outside, path.join(workspace, ".myapp", "skills"));
      expect(await bothFormats(order)).toEqual({ crossed: "symlink_refused", same: "symlink_refused" });
      expect(await readdir(outside)).toEqual([]);
    });
  }

  it("control: a plain .myapp/skills is written through either copy", async () => {
    const result = await bothFormats("esm-then-cjs");
    expect(result.crossed).toBe("written");
    // The second create of the same name: the store saw the first one.
    expect(result.same).toBe("skill_exists");
    expect(await readdir(path.join(workspace, ".myapp", "skills"))).toEqual(["planted"]);
  });
});
