/**
 * Red team round 42: grep's look at the ignore files ripgrep would open skipped every gitignored
 * directory, but ripgrep's `--glob` decides before the ignore files: `glob: "*"` whitelists the
 * name of a gitignored directory, ripgrep enters it and opens a named pipe `.gitignore` there with
 * a blocking open. On Linux the watch stopped it after ~100 ms (and the JavaScript engine
 * answered, saying "one it did not look at"); where there is no watch, it blocked until grep's
 * timeout. The look now applies the glob as ripgrep does, so the pipe is found before ripgrep
 * reads anything. Controls: without the glob ripgrep answers (the directory stays unentered);
 * the JavaScript engine answers the same with the glob; `*.txt` (a glob no directory matches)
 * leaves the ignored directory out in both engines, as the `rg` CLI does.
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

describe.skipIf(ripgrep.missing)(ripgrep.label("a glob that whitelists a gitignored directory"), () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "atc-r42-glob-fifo-"));
    await mkdir(path.join(root, "ign", "sub"), { recursive: true });
    await writeFile(path.join(root, ".gitignore"), "ign/\n");
    await writeFile(path.join(root, "top.txt"), "needle\n");
    await writeFile(path.join(root, "ign", "sub", "a.txt"), "needle\n");
    execFileSync("mkfifo", [path.join(root, "ign", "sub", ".gitignore")]);
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function grep(engine: "ripgrep" | "javascript", glob: string | undefined) {
    const run = createRegistry({ tools: [createGrepTool({ engine, searchTimeoutMs: 20_000 })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox: "unrestricted" },
    });
    const result = await run.call("grep", glob === undefined ? { pattern: "needle" } : { pattern: "needle", glob });
    return String(result.ok ? result.output : result.error.message);
  }

  it("ripgrep is not run: the look finds the named pipe in the directory the glob opens", async () => {
    const output = await grep("ripgrep", "*");
    expect(output).toMatch(/ripgrep was not run: ign\/sub\/\.gitignore is a named pipe/);
    expect(output).not.toContain("ripgrep was stopped");
    expect(output.split("\n").slice(0, 2)).toEqual(["ign/sub/a.txt:1:needle", "top.txt:1:needle"]);
  }, 30_000);

  it("controls: no glob, or a glob no directory matches: ripgrep answers without the ignored directory", async () => {
    for (const glob of [undefined, "*.txt"]) {
      const output = await grep("ripgrep", glob);
      expect(output).toMatch(/^top\.txt:1:needle\n\[engine: ripgrep, sandbox [^\]]+\]$/);
    }
  }, 30_000);

  it("the JavaScript engine answers as ripgrep with the glob", async () => {
    expect((await grep("javascript", "*")).split("\n").slice(0, 2)).toEqual(["ign/sub/a.txt:1:needle", "top.txt:1:needle"]);
    expect(await grep("javascript", "*.txt")).toMatch(/^top\.txt:1:needle\n/);
  }, 30_000);
});
