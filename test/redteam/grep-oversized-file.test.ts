/**
 * Red team round 9: `grep` on one named file over 8 MiB answered "No matches", since both engines
 * skipped such files: the model read that as "not in this file" (a 50 MB log holding the pattern
 * on every line). It was then refused as `too_large`, where `rg PATTERN bigfile` answers. A named
 * file of any size is now searched as rg searches it (the JavaScript engine in pieces, in bounded
 * memory); only a file with a line it cannot hold (over 64 MiB) is named as not searched.
 */
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools, createGrepTool, type GrepToolOptions } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { largeText } from "../support/large-grep-text.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");
const MAX_LINE_MIB = 64;

function run(workspace: string, sandbox: SandboxScope, options?: GrepToolOptions) {
  const registry = createRegistry({ tools: options === undefined ? createFileTools() : [createGrepTool(options)] });
  return registry.createRun({
    profile: "full",
    permissions: { sandbox, workspace },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
}

/** The answer's lines without the engine footer (`[]` for "No matches"), and the footer. */
function lines(result: ToolCallResult): { body: string[]; engine: string } {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  const all = String(result.output).split("\n");
  const engine = all.pop() ?? "";
  return { body: all.length === 1 && all[0]?.startsWith("No matches") ? [] : all, engine };
}

/** What `rg` prints for one named file (path shown, as the tool shows it). */
function rgLines(cwd: string, args: readonly string[]): string[] {
  const result = spawnSync("rg", ["--no-config", "--line-number", "--with-filename", "--no-context-separator", ...args], {
    cwd,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.status !== 0 && result.status !== 1) throw new Error(`rg failed: ${result.stderr}`);
  return result.stdout === "" ? [] : result.stdout.replace(/\n$/, "").split("\n");
}

describe("grep on one named file over 8 MiB answers as rg does", () => {
  let workspace: string;
  let text: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-size-"));
    text = largeText();
    await writeFile(path.join(workspace, "big.log"), text);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  // The default tools (auto: a named file goes to the JavaScript engine) in both sandbox scopes.
  for (const sandbox of ["unrestricted", "workspace"] as const) {
    it(`${sandbox}: a named 20 MiB file's matches at the start, middle, end and across piece borders are found`, async () => {
      // The oracle without rg: the file's own lines holding "needle".
      const expected = text
        .split("\n")
        .flatMap((line, index) => (line.includes("needle") ? [`big.log:${index + 1}:${line}`] : []));
      expect(expected).toHaveLength(5);
      const answer = lines(await run(workspace, sandbox).call("grep", { pattern: "needle", path: "big.log" }));
      expect(answer.body).toEqual(expected);
      expect(answer.engine).toContain("[engine: javascript");
    }, 120_000);
  }

  describe.skipIf(ripgrep.missing)(ripgrep.label("against the real rg"), () => {
    for (const context of [0, 2]) {
      it(`context ${context}: both engines give rg's lines for the named file`, async () => {
        const expected = rgLines(workspace, ["--context", String(context), "--regexp", "needle", "--", "big.log"]);
        expect(expected.filter((line) => /^big\.log:\d+:/.test(line))).toHaveLength(5);
        for (const engine of ["ripgrep", "javascript"] as const) {
          const answer = lines(
            await run(workspace, "unrestricted", { engine }).call("grep", { pattern: "needle", path: "big.log", context }),
          );
          expect(answer.engine).toContain(`[engine: ${engine}`);
          expect(answer.body).toEqual(expected);
        }
      }, 120_000);
    }

    it.skipIf(bubblewrap.missing)(
      bubblewrap.label("ripgrep in the workspace sandbox searches the named file too"),
      async () => {
        const expected = rgLines(workspace, ["--regexp", "needle", "--", "big.log"]);
        const answer = lines(
          await run(workspace, "workspace", { engine: "ripgrep" }).call("grep", { pattern: "needle", path: "big.log" }),
        );
        expect(answer.engine).toContain("[engine: ripgrep, sandbox bubblewrap/workspace");
        expect(answer.body).toEqual(expected);
      },
      120_000,
    );
  });
});

describe(`a named file with a line over ${MAX_LINE_MIB} MiB`, () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-long-named-"));
    // Well over the bound: the engine reads 4 MiB at a time, so it notices a line once more than
    // 64 MiB of it is held without its end.
    await writeFile(path.join(workspace, "huge.txt"), `${"x".repeat((MAX_LINE_MIB + 8) * 1024 * 1024)}\nneedle\n`);
    await writeFile(path.join(workspace, "long.txt"), `${"x".repeat(8 * 1024 * 1024)}\nneedle\n`);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('JavaScript engine: the file is named as not searched, never a bare "No matches"; a long line under the bound is searched', async () => {
    const answer = lines(
      await run(workspace, "workspace", { engine: "javascript" }).call("grep", { pattern: "needle", path: "huge.txt" }),
    );
    expect(answer.body).toEqual([
      'No matches for "needle".',
      `[not searched: huge.txt (a line longer than ${MAX_LINE_MIB} MiB)]`,
    ]);
    // Control: an 8 MiB line, named, is searched.
    const control = lines(
      await run(workspace, "workspace", { engine: "javascript" }).call("grep", { pattern: "needle", path: "long.txt" }),
    );
    expect(control.body).toEqual(["long.txt:2:needle"]);
  }, 120_000);

  it.skipIf(ripgrep.missing)(
    ripgrep.label("ripgrep engine: rg holds the line and answers, as rg does"),
    async () => {
      const expected = rgLines(workspace, ["--regexp", "needle", "--", "huge.txt"]);
      expect(expected).toEqual(["huge.txt:2:needle"]);
      const answer = lines(
        await run(workspace, "unrestricted", { engine: "ripgrep" }).call("grep", { pattern: "needle", path: "huge.txt" }),
      );
      expect(answer.body).toEqual(expected);
    },
    120_000,
  );
});
