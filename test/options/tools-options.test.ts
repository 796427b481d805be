/**
 * The tools subpath's numeric and choice options against hostile values: each is refused at the
 * factory (`invalid_option` naming it) unless its documented rule accepts it. Before: every value
 * was taken, and misbehaved only in a call: `searchTimeoutMs: 2 ** 31` stopped every grep after
 * 1 ms (Node fires a longer timer at once), `1.5` made `AbortSignal.timeout` throw a RangeError,
 * `maxOutputBytes: NaN` kept every byte of output in memory, `engine: "rg"` ran the "auto" engine.
 * Positive controls: the documented values (0 and Infinity for `maxOutputBytes`, the longest timer)
 * work in real calls.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ConfigurationError, createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createBashTool, createGrepTool, runSandboxed, UnsandboxedProcessSandbox } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectChoicesHold, expectRuleHolds, TIMER } from "../support/hostile-options.js";

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-tools-options-"));
  await writeFile(path.join(workspace, "a.txt"), "needle here\n");
});
afterAll(async () => rm(workspace, { recursive: true, force: true }));

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

async function call(tool: ReturnType<typeof createBashTool>, name: string, input: object): Promise<string> {
  const registry = createRegistry({ tools: [tool] });
  try {
    const run = registry.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    return text(await run.call(name, input));
  } finally {
    await registry.close();
  }
}

describe("tools options: refused at the factory unless the documented rule accepts them", () => {
  it("createBashTool maxOutputBytes: a whole number at least 0, or Infinity", async () => {
    await expectRuleHolds("maxOutputBytes", (maxOutputBytes) => createBashTool({ maxOutputBytes }), {
      min: 0,
      integer: true,
      infinite: true,
    });
  });

  it("runSandboxed maxOutputBytes: refused before the command starts", async () => {
    const sandbox = new UnsandboxedProcessSandbox({ workspace });
    const marker = path.join(workspace, "ran");
    for (const maxOutputBytes of [Number.NaN, -1, 1.5, Number.NEGATIVE_INFINITY]) {
      const command = { command: "/bin/sh", args: ["-c", `touch ${marker}`], cwd: workspace };
      await expect(runSandboxed(sandbox, command, { maxOutputBytes })).rejects.toMatchObject({
        code: "invalid_option",
        data: { field: "maxOutputBytes" },
      });
    }
    await expect(import("node:fs/promises").then((fs) => fs.stat(marker))).rejects.toThrow(/ENOENT/);
  });

  it("createGrepTool matchDeadlineMs and searchTimeoutMs: whole ms from 1 to 2^31 - 1", async () => {
    await expectRuleHolds("matchDeadlineMs", (matchDeadlineMs) => createGrepTool({ matchDeadlineMs }), TIMER);
    await expectRuleHolds("searchTimeoutMs", (searchTimeoutMs) => createGrepTool({ searchTimeoutMs }), TIMER);
  });

  it("createBashTool runLimits.waitSeconds: 0 to 2,147,483 s; null is refused, not read as the default", async () => {
    await expectRuleHolds(
      "runLimits.waitSeconds",
      (waitSeconds) => createBashTool({ runLimits: { waitSeconds } }),
      { min: 0, max: 2_147_483 },
      undefined,
      "invalid_sandbox_option",
    );
  });

  it("createGrepTool engine: one of auto, ripgrep, javascript", async () => {
    await expectChoicesHold("engine", (engine) => createGrepTool({ engine }), ["auto", "ripgrep", "javascript"]);
  });

  it("the message names the factory, the option and the accepted range", () => {
    const error = (() => {
      try {
        createGrepTool({ searchTimeoutMs: 2 ** 31 });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String((error as Error).message)).toBe(
      "createGrepTool: searchTimeoutMs must be a whole number at least 1 and at most 2147483647; got 2147483648.",
    );
  });
});

describe("positive controls: the documented values work in real calls", () => {
  it("grep with the longest timer and deadline finds the match (JavaScript engine and auto)", async () => {
    for (const engine of ["javascript", "auto"] as const) {
      const tool = createGrepTool({ engine, searchTimeoutMs: 2 ** 31 - 1, matchDeadlineMs: 2 ** 31 - 1 });
      expect(await call(tool, "grep", { pattern: "needle" })).toContain("a.txt:1:needle here");
    }
  });

  it("bash with maxOutputBytes 0 keeps nothing but says how much was cut; Infinity keeps everything", async () => {
    const command = "head -c 3000 /dev/zero | tr '\\0' a";
    const none = await call(createBashTool({ maxOutputBytes: 0 }), "bash", { command });
    expect(none).not.toContain("aaa");
    expect(none).toMatch(/3000 bytes of stdout cut/);
    const all = await call(createBashTool({ maxOutputBytes: Number.POSITIVE_INFINITY }), "bash", { command });
    expect(all).toContain("a".repeat(3000));
    expect(all).not.toMatch(/cut/);
  });
});
