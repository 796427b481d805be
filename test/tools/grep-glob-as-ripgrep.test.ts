/**
 * grep's `glob` as ripgrep's `--glob` applies it (found by grep-glob-differential.property.test.ts):
 * - `!sub` leaves out the directory `sub` and all below it; the JavaScript engine matched the glob
 *   on files only and searched `sub/a.txt`;
 * - a whitelist glob overrides the ignore files (`*.log` searches a gitignored `x.log`), in rg and
 *   now in the JavaScript engine, which left it out;
 * - `.git` and `node_modules` stay skipped whatever the glob: the ripgrep engine gave the model's
 *   glob after its `!node_modules`, and of rg's globs the last match decides, so `*` searched
 *   `node_modules`.
 * Each case is compared with `rg` run directly (with the skipped directories' globs last).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
let workspace: string;

async function grep(engine: "ripgrep" | "javascript", glob: string): Promise<string[]> {
  const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
    profile: "full",
    permissions: { workspace, sandbox: "unrestricted" },
  });
  const result = await run.call("grep", { pattern: "needle", glob });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  const lines = String(result.ok ? result.output : "")
    .split("\n")
    .slice(0, -1);
  return lines[0]?.startsWith("No matches") === true ? [] : lines;
}

function rg(glob: string): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "-n", "-H", "--no-heading", "--sort", "path"];
  try {
    const out = execFileSync("rg", [...args, "--glob", glob, "--glob", "!node_modules", "needle"], {
      cwd: workspace,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return out.split("\n").filter(Boolean);
  } catch (error) {
    // Exit status 1: no match.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

const CASES: [glob: string, expected: string[]][] = [
  ["!sub", ["top.txt:1:needle"]],
  ["*.log", ["x.log:1:needle"]],
  ["*", ["sub/a.txt:1:needle", "top.txt:1:needle", "x.log:1:needle"]],
  // Positive controls: a glob that names no directory, and one below the ignored file's directory.
  ["*.txt", ["sub/a.txt:1:needle", "top.txt:1:needle"]],
  ["!*.txt", []],
];

describe.skipIf(ripgrep.missing)(ripgrep.label("grep's glob applied as rg's --glob"), () => {
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-glob-rg-"));
    await mkdir(path.join(workspace, "sub"));
    await mkdir(path.join(workspace, "node_modules"));
    await writeFile(path.join(workspace, "sub", "a.txt"), "needle\n");
    await writeFile(path.join(workspace, "top.txt"), "needle\n");
    await writeFile(path.join(workspace, "x.log"), "needle\n");
    await writeFile(path.join(workspace, "node_modules", "m.txt"), "needle\n");
    await writeFile(path.join(workspace, ".gitignore"), "*.log\n");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  for (const [glob, expected] of CASES) {
    it(`rg itself: --glob ${glob}`, () => {
      expect(rg(glob)).toEqual(expected);
    });
    for (const engine of ["ripgrep", "javascript"] as const) {
      it(`${engine}: glob ${glob}`, async () => {
        expect(await grep(engine, glob)).toEqual(expected);
      });
    }
  }
});
