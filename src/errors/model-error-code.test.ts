import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isModelErrorCode, MODEL_ERROR_CODES, modelErrorCodeTable } from "./model-error-code.js";

const root = join(import.meta.dirname, "..", "..");

function filesUnder(dir: string, accept: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "fixtures") out.push(...filesUnder(path, accept));
    } else if (accept(entry.name)) out.push(path);
  }
  return out;
}

/**
 * Codes no test of the repository produces yet. The test below checks this list is exact: covering
 * one of them makes the test fail until it is removed here. `write_failed` is the fallback of a
 * change failing after its commit point with an error that carries no errno (commit-file-changes'
 * `honestFailure`): every failure of the file system there comes with one (mapped to `no_space`,
 * `file_system_error` and the like) and the library's own errors there are mapped too, so only a
 * defect of the library reaches it; no real condition to produce it with is known.
 */
const NOT_YET_PRODUCED_BY_A_TEST = ["write_failed"];

/**
 * Literal codes in the library: given to ToolError, to the helpers that build one from a code
 * (git's gitError, cron's mistake), or the fallback for a ToolError's code (`cause instanceof ToolError ? cause.code : "write_failed"`).
 */
const LITERAL_CODE = /(?:new ToolError|gitError|mistake)\(\s*"([a-z_]+)"|instanceof ToolError \? [^:;\n]+: "([a-z_]+)"/g;

describe("ModelErrorCode: the one list of codes the model can see", () => {
  it("is the table in the README", () => {
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const table = /<!-- model-error-codes:start -->\n([\s\S]*?)\n<!-- model-error-codes:end -->/.exec(readme)?.[1];
    expect(table).toBe(modelErrorCodeTable());
  });

  it("holds every literal code the library throws as a ToolError", () => {
    const sources = filesUnder(join(root, "src"), (name) => name.endsWith(".ts") && !name.endsWith(".test.ts"));
    const missing = new Set<string>();
    for (const file of sources) {
      for (const match of readFileSync(file, "utf8").matchAll(LITERAL_CODE)) {
        const code = match[1] ?? match[2];
        if (!isModelErrorCode(code)) missing.add(`${code} (${file.slice(root.length + 1)})`);
      }
    }
    expect([...missing]).toEqual([]);
  });

  it("the scan above sees codes given through helpers and fallback codes", () => {
    const sample =
      'throw mistake("missing_command", "command", "x"); const code = e instanceof ToolError ? e.code : "write_failed"; const other = x ? y : "not_a_code"; gitError("unknown_ref", m);';
    expect([...sample.matchAll(LITERAL_CODE)].map((match) => match[1] ?? match[2])).toEqual([
      "missing_command",
      "write_failed",
      "unknown_ref",
    ]);
  });

  it("has every code produced somewhere by a test, but for the known exceptions", () => {
    const tests = filesUnder(root, (name) => name.endsWith(".test.ts") && name !== "model-error-code.test.ts")
      .filter((file) => !file.includes(`${join(root, "node_modules")}`))
      .map((file) => readFileSync(file, "utf8"))
      .join("\n");
    // A code is expected as itself, or as `error:<code>`, the form the escape suites' `outcome`
    // gives a failed call in (test/escape/support/sandbox-harness.ts).
    const unproduced = Object.keys(MODEL_ERROR_CODES).filter(
      (code) => !tests.includes(`"${code}"`) && !tests.includes(`"error:${code}"`),
    );
    expect(unproduced.sort()).toEqual([...NOT_YET_PRODUCED_BY_A_TEST].sort());
  });
});
