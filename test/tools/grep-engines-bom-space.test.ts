/**
 * Where the engines disagreed: ripgrep drops a UTF-8 byte-order mark before searching, so `^first`
 * matched line 1 of such a file in ripgrep only (and the JavaScript engine printed the mark); and
 * JavaScript's `\s` holds U+FEFF where ripgrep's (Unicode White_Space) does not, so `a\sb`
 * matched `a<U+FEFF>b` in the JavaScript engine only. Both now answer as `rg`; line 1 is the line
 * as `read` shows it, without the mark. Controls: a real space, and `rg` itself.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const BOM = "\ufeff";

describe("grep engines on a byte-order mark and \\s", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-bom-space-"));
    await writeFile(path.join(workspace, "bom.txt"), `${BOM}first\na${BOM}b\na b\n`);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const cases: [string, string | undefined, string][] = [
    ["^first", undefined, "bom.txt:1:first"],
    ["^first", "bom.txt", "bom.txt:1:first"],
    ["a\\sb", undefined, "bom.txt:3:a b"],
  ];

  it.skipIf(ripgrep.missing)("rg itself", () => {
    const rg = (pattern: string) =>
      execFileSync("rg", ["--no-config", "--with-filename", "-n", pattern], {
        cwd: workspace,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      });
    expect(rg("^first")).toBe("bom.txt:1:first\n");
    expect(rg("a\\sb")).toBe("bom.txt:3:a b\n");
  });

  for (const engine of ripgrep.missing ? (["javascript"] as const) : (["javascript", "ripgrep"] as const)) {
    it(`engine ${engine}`, async () => {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox: "unrestricted" },
      });
      for (const [pattern, where, line] of cases) {
        const result = await run.call("grep", { pattern, ...(where === undefined ? {} : { path: where }) });
        expect(result.ok, JSON.stringify(result)).toBe(true);
        const lines = String(result.ok ? result.output : "")
          .split("\n")
          .filter((each) => !each.startsWith("["));
        expect(lines.filter(Boolean), `${pattern} ${where ?? ""}`).toEqual([line]);
      }
    });
  }
});
