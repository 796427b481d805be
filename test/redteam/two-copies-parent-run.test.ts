/**
 * Red team round 15: the ESM and the CommonJS build loaded in one process (a host whose
 * dependencies mix `import` and `require`). A child run whose parent `Run` came from the other
 * copy was not recognised as a Run (`instanceof`), was read as a bare scope without
 * `allowedTools`, and its child could call every tool the parent was denied.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const repo = path.resolve(import.meta.dirname, "../..");
const dist = path.join(repo, "dist");
const script = path.join(repo, "test/redteam/support/two-copies-parent-run.mjs");

describe("child runs across the two builds of the package", () => {
  it("a child keeps its parent's allowedTools and permissions whichever build made either", async () => {
    expect(existsSync(path.join(dist, "index.cjs")) && existsSync(path.join(dist, "index.js")), "run `npm run build` first").toBe(
      true,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script, dist], { timeout: 60_000 });
    const outcome = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    const narrowed = {
      parentDenied: false,
      childOfRunDenied: "tool_not_allowed",
      childOfScopeDenied: "tool_not_allowed",
      childOfRunApproval: "destructive",
    };
    // Control: one build for both (held before).
    expect(outcome["esm parent, esm child"]).toEqual(narrowed);
    expect(outcome["cjs parent, esm child"]).toEqual(narrowed);
    expect(outcome["esm parent, cjs child"]).toEqual(narrowed);
  }, 90_000);
});
