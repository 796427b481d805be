// defineTool with a plain JSON Schema loaded Ajv and checked the schema against its meta-schema at
// definition: about 130-150 ms of a new process, paid by a host defining tools it may never call.
// Ajv now loads at the first call that validates; a structural check still refuses a malformed
// schema at definition (README: a bad definition throws ToolDefinitionError there).
import { execFile } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { nodeChild, repoRoot } from "../support/child-entry.js";

const script = path.join(repoRoot, "test/tools/support/define-json-schema-tools.mjs");

interface Report {
  readonly cpuMs: number;
  readonly beforeDefine: boolean;
  readonly afterDefine: boolean;
  readonly refused: { readonly code: string; readonly message: string } | undefined;
  readonly afterRefusal: boolean;
  readonly okCall: boolean;
  readonly afterCall: boolean;
  readonly invalidCall: string;
}

function definedIn(mode: "new" | "old"): Promise<Report> {
  const child = nodeChild(script, [mode]);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, child.args, { cwd: repoRoot, env: child.env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) return reject(new Error(`${error.message}\n${stderr}`));
      resolve(JSON.parse(stdout.trim().split("\n").at(-1) as string) as Report);
    });
  });
}

describe("defineTool with a plain JSON Schema does not load Ajv", () => {
  it("100 definitions load no Ajv; a malformed schema is still refused there; the first call loads it and validates", async () => {
    const report = await definedIn("new");
    expect(report).toMatchObject({ beforeDefine: false, afterDefine: false, afterRefusal: false, okCall: true, afterCall: true });
    expect(report.refused).toMatchObject({ code: "invalid_input_schema" });
    expect(report.refused?.message).toMatch(/not a valid JSON Schema: schema\/properties\/a\/type must be one of/);
    // Validation still happens at the call: minLength 1 refuses "".
    expect(report.invalidCall).toBe("invalid_input");
  }, 120_000);

  it("costs a fraction of the old definition's CPU time, measured old and new alternately in new processes", async () => {
    const news: number[] = [];
    const olds: number[] = [];
    for (let round = 0; round < 3; round++) {
      const [first, second] = round % 2 === 0 ? (["new", "old"] as const) : (["old", "new"] as const);
      const a = await definedIn(first);
      const b = await definedIn(second);
      (first === "new" ? news : olds).push(a.cpuMs);
      (second === "new" ? news : olds).push(b.cpuMs);
      // The old way did load Ajv at definition (the reference is what it claims to be).
      expect((first === "old" ? a : b).afterDefine).toBe(true);
    }
    const best = (values: number[]) => Math.min(...values);
    const ratio = best(news) / best(olds);
    console.log(
      `defining 100 JSON-schema tools, CPU ms (least of 3): new ${best(news).toFixed(1)}, old ${best(olds).toFixed(1)}, ratio ${ratio.toFixed(2)}, load ${os.loadavg()[0]?.toFixed(1)}`,
    );
    expect(ratio).toBeLessThan(0.5);
  }, 300_000);
});
