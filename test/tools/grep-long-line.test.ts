import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GREP_MAX_LINE_CHARS } from "../../src/tools/fs/grep-line-text.js";
import { capability } from "../support/capabilities.js";
import { longestHold } from "../support/event-loop-hold.js";

const ripgrep = capability("ripgrep");

// A minified bundle or a one-line JSON dump: one line of 32 MiB with the word at its start.
describe.skipIf(ripgrep.missing)(ripgrep.label("grep over one very long line"), () => {
  let workspace: string;
  const size = 32 * 1024 * 1024;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-long-line-"));
    const line = Buffer.alloc(size, "x");
    line.write("needle", 0);
    line[line.length - 1] = 10;
    await writeFile(path.join(workspace, "bundle.min.js"), line);
    // The control: the same bytes in lines of 2 KiB (shorter than grep cuts).
    for (let at = 2048; at < line.length; at += 2048) line[at - 1] = 10;
    await writeFile(path.join(workspace, "lines.txt"), line);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });
  const runFor = (engine: "ripgrep" | "javascript") =>
    createRegistry({ tools: [createGrepTool({ engine, searchTimeoutMs: 30_000 })] }).createRun({
      profile: "full",
      permissions: { workspace, sandbox: "unrestricted" },
    });

  it("ripgrep's 32 MiB line is read in linear time, the event loop kept free, and printed cut", async () => {
    const started = performance.now();
    // The loop's longest hold less this thread's wait for a CPU (event-loop-hold.ts): a wall-clock
    // lateness (monitorEventLoopDelay) also reads the machine's load, 400 ms and more at load 28.
    const { result, longestMs, longestRanMs } = await longestHold(() =>
      runFor("ripgrep").call("grep", { pattern: "needle", glob: "*.js" }),
    );
    const wall = performance.now() - started;
    expect(result.ok, JSON.stringify(result.ok ? "" : result.error)).toBe(true);
    const output = String(result.ok ? result.output : "");
    const first = output.split("\n")[0] as string;
    const cutNote = `bundle.min.js:1:needle${"x".repeat(GREP_MAX_LINE_CHARS - 6)} [... line cut: ${size - 1 - GREP_MAX_LINE_CHARS} more characters]`;
    expect(first).toBe(cutNote);
    expect(output.length).toBeLessThan(GREP_MAX_LINE_CHARS + 500);
    // The old reader searched the whole growing line again per 64 KiB: over 60 s here, stalling the loop.
    expect(wall).toBeLessThan(15_000);
    expect(longestMs, `held ${longestMs.toFixed(0)} ms, ran ${longestRanMs.toFixed(0)} ms of it`).toBeLessThan(400);
  }, 60_000);

  it("the JavaScript engine cuts the same line the same way", async () => {
    const result = await runFor("javascript").call("grep", { pattern: "needle", path: "bundle.min.js" });
    expect(String(result.ok ? result.output : JSON.stringify(result.error)).split("\n")[0]).toBe(
      `bundle.min.js:1:needle${"x".repeat(GREP_MAX_LINE_CHARS - 6)} [... line cut: ${size - 1 - GREP_MAX_LINE_CHARS} more characters]`,
    );
  }, 60_000);

  it("the same bytes in ordinary lines give rg's lines, uncut", async () => {
    const expected = execFileSync(
      "rg",
      ["--no-config", "--line-number", "--with-filename", "--no-heading", "--regexp", "needle", "lines.txt"],
      { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    ).trimEnd();
    const result = await runFor("ripgrep").call("grep", { pattern: "needle", glob: "*.txt" });
    expect(result.ok && String(result.output).split("\n").slice(0, -1).join("\n")).toBe(expected);
  }, 60_000);
});
