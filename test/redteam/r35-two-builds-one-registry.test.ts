/**
 * Red team round 35: the ESM and the CommonJS build loaded in one process, mixed more finely than
 * round 15's parent runs (test/redteam/r35-two-builds-script.mjs, a child process on dist/): one
 * copy's `defineTool` registered in the other's registry, that run driven by the other copy's
 * Anthropic, OpenAI and AI SDK adapters, the other copy's approval broker, and a registry error
 * checked with both copies' `isInstance`. Expected, whichever copy made which part: the allowed
 * tool runs (each adapter once), a tool left out of `allowedTools` is `tool_not_allowed`, a
 * mutating tool under `approval: "destructive"` with nobody answering is `approval_denied` and
 * never runs, the AI SDK tool set holds only what the run may call, and a duplicate name is a
 * `ToolDefinitionError` to both copies. Control: the ESM build alone.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const dist = path.join(repo, "dist");
const script = path.join(repo, "test/redteam/r35-two-builds-script.mjs");

describe("tools, registries, adapters and brokers of the two builds mixed", () => {
  it("allows, denies and asks alike whichever build made each part", async () => {
    expect(existsSync(path.join(dist, "index.cjs")) && existsSync(path.join(dist, "index.js")), "run `npm run build` first").toBe(
      true,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script, dist], { timeout: 60_000 });
    const outcome = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    const expected = {
      duplicate: { code: "duplicate_tool_name", isInstance: [true, true, true, true], notOther: [false, false, false, false] },
      anthropic: [
        ["toolu_1", false, '{"got":1}'],
        ["toolu_2", true, expect.stringContaining('"code":"tool_not_allowed"')],
        ["toolu_3", true, expect.stringContaining('"code":"approval_denied"')],
      ],
      chat: ['{"got":2}'],
      sdkTools: ["echo", "find_tool", "risky"],
      sdk: { got: 3 },
      ran: ["echo", "echo", "echo"],
    };
    // Control: one build for every part.
    expect(outcome["esm registry, esm tools, esm adapters"]).toEqual(expected);
    expect(outcome["esm registry, cjs tools, cjs adapters"]).toEqual(expected);
    expect(outcome["cjs registry, esm tools, esm adapters"]).toEqual(expected);
  }, 90_000);
});
