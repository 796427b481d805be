import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { comparePaths, parseNumberedLine } from "../../src/tools/fs/grep-ripgrep.js";
import { capability } from "../support/capabilities.js";

describe("ripgrep's numbered lines", () => {
  it("splits at the NUL after the path, whatever the path holds", () => {
    expect(parseNumberedLine("a:1-b.txt\u00003:x:y")).toEqual({ path: "a:1-b.txt", number: 3, text: "x:y", match: true });
    expect(parseNumberedLine("dir/f\u000012-ctx-line")).toEqual({ path: "dir/f", number: 12, text: "ctx-line", match: false });
    expect(parseNumberedLine("f\u00007:")).toEqual({ path: "f", number: 7, text: "", match: true });
  });

  it("ignores what is not a numbered line (a note about a binary file, a separator)", () => {
    expect(parseNumberedLine("f\u0000binary file matches (found NUL byte)")).toBeUndefined();
    expect(parseNumberedLine("--")).toBeUndefined();
    expect(parseNumberedLine("\u00001:x")).toBeUndefined();
  });
});

const ripgrep = capability("ripgrep");
describe.skipIf(ripgrep.missing)(ripgrep.label("grep's order is ripgrep's --sort path order"), () => {
  let workspace: string;
  const names = [
    "a/b.txt",
    "a-b/x.txt",
    "a.txt",
    "B.txt",
    "a/b/c.txt",
    "é.txt",
    "z.txt",
    "_/u.txt",
    "a b/c.txt",
    "\uFF21.txt",
    "\u{1F600}.txt",
  ];
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-order-"));
    for (const name of names) {
      await mkdir(path.dirname(path.join(workspace, name)), { recursive: true });
      await writeFile(path.join(workspace, name), "one needle\nnone\nneedle two\n");
    }
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("sorts paths as rg --sort path walks them", () => {
    const sorted = execFileSync("rg", ["--no-config", "--files", "--sort", "path"], { cwd: workspace, encoding: "utf8" })
      .trimEnd()
      .split("\n");
    expect([...names].sort(comparePaths)).toEqual(sorted);
  });

  it("prints what rg --sort path prints, from the parallel search, and cuts at the limit in that order", async () => {
    const run = createRegistry({ tools: [createGrepTool({ engine: "ripgrep" })] }).createRun({
      profile: "full",
      permissions: { workspace, sandbox: "unrestricted" },
    });
    const expected = execFileSync(
      "rg",
      ["--no-config", "--sort", "path", "--line-number", "--with-filename", "--no-heading", "--regexp", "needle"],
      { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    )
      .trimEnd()
      .split("\n");
    const all = await run.call("grep", { pattern: "needle" });
    expect(all.ok && String(all.output).split("\n").slice(0, -1)).toEqual(expected);
    const cut = await run.call("grep", { pattern: "needle", max_results: 5 });
    const lines = cut.ok ? String(cut.output).split("\n") : [];
    expect(lines.slice(0, 5)).toEqual(expected.slice(0, 5));
    expect(lines[5]).toMatch(/^\[stopped at 5 results/);
  });
});
