/**
 * Globs written from the current directory (`./src/**`, `./**\/*.ts`, `!./src/**`): paths are
 * matched relative to the search's start, so they matched nothing in `glob` and in both grep
 * engines (ripgrep and minimatch agree on that), though a model writes them meaning `src/**`.
 * Both engines and `glob` now take a leading `./` (`.//` too) as ripgrep takes a leading `/`: the
 * glob is anchored to the start (`./*.md` names the top level's only; dropping `./` made it match
 * `src/q.md` too). Controls: the same globs without it, braces and `**`, and ripgrep's own answer.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGlobTool, createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withoutLeadingDotSlash } from "../../src/tools/fs/glob-pattern.js";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe("globs with a leading ./", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-glob-dot-"));
    await mkdir(path.join(workspace, "src", "deep"), { recursive: true });
    await writeFile(path.join(workspace, "src", "deep", "x.ts"), "needle\n");
    await writeFile(path.join(workspace, "src", "y.js"), "needle\n");
    await writeFile(path.join(workspace, "z.md"), "needle\n");
    await writeFile(path.join(workspace, "src", "q.md"), "needle\n");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("anchors at ./ (repeated, .//, after !) as ripgrep's leading /, and changes nothing else", () => {
    expect(withoutLeadingDotSlash("./src/**")).toBe("/src/**");
    expect(withoutLeadingDotSlash("././a")).toBe("/a");
    expect(withoutLeadingDotSlash(".//src/**")).toBe("/src/**");
    expect(withoutLeadingDotSlash("!./src/**")).toBe("!/src/**");
    expect(withoutLeadingDotSlash(".hidden/*")).toBe(".hidden/*");
    expect(withoutLeadingDotSlash("../x")).toBe("../x");
    expect(withoutLeadingDotSlash("./")).toBe("./");
  });

  const cases: [string, string[]][] = [
    ["./src/**", ["src/deep/x.ts", "src/q.md", "src/y.js"]],
    [".//src/**", ["src/deep/x.ts", "src/q.md", "src/y.js"]],
    ["./**/*.ts", ["src/deep/x.ts"]],
    ["src/**", ["src/deep/x.ts", "src/q.md", "src/y.js"]],
    ["{*.ts,*.md}", ["src/deep/x.ts", "src/q.md", "z.md"]],
    // A leading ./ anchors to the top level, as `rg --glob '/*.md'` (not src/q.md).
    ["./*.md", ["z.md"]],
    ["*.md", ["src/q.md", "z.md"]],
    ["**/*.{ts,js}", ["src/deep/x.ts", "src/y.js"]],
  ];

  it("glob lists the same files with and without ./", async () => {
    const run = createRegistry({ tools: [createGlobTool()] }).createRun({
      profile: "full",
      permissions: { workspace, sandbox: "unrestricted" },
    });
    for (const [pattern, files] of cases) {
      const result = await run.call("glob", { pattern });
      expect(result.ok).toBe(true);
      const listed = String(result.ok && result.output)
        .split("\n")
        .slice(1)
        .sort();
      expect(listed, pattern).toEqual(files);
    }
  });

  for (const engine of ripgrep.missing ? (["javascript"] as const) : (["ripgrep", "javascript"] as const)) {
    it(`grep (${engine}) searches the same files with and without ./`, async () => {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox: "unrestricted" },
      });
      for (const [glob, files] of cases) {
        const result = await run.call("grep", { pattern: "needle", glob, files_only: true });
        expect(result.ok).toBe(true);
        const listed = String(result.ok && result.output)
          .split("\n")
          .slice(0, -1)
          .sort();
        expect(listed, glob).toEqual(files);
      }
    });
  }

  it("a pattern only ripgrep accepts is refused by both engines with the forms that work", async () => {
    for (const engine of ["ripgrep", "javascript"] as const) {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox: "unrestricted" },
      });
      const result = await run.call("grep", { pattern: "(?i)NEEDLE" });
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.code).toBe("invalid_pattern");
      expect(!result.ok && result.error.hint).toContain("ignore_case: true instead of (?i)");
    }
  });
});
