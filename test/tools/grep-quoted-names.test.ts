/**
 * grep prints a path holding a control character as a JSON string (`"a\nb.txt"`); a file literally
 * named `"a\nb.txt"` (quotes, a backslash, an `n`) was printed as it is, the same line. A name that
 * starts with `"` is now quoted too, in both engines: every name prints differently. Control: a
 * plain name, and a `"` inside a name, print as they are.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe("grep's printed names are one-to-one with file names", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-quoted-"));
    for (const name of ["a\nb.txt", '"a\\nb.txt"', 'in"side.txt', "plain.txt"]) {
      await writeFile(path.join(workspace, name), "needle\n");
    }
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  const engines = ripgrep.missing ? (["javascript"] as const) : (["javascript", "ripgrep"] as const);
  for (const engine of engines) {
    it(`engine ${engine}`, async () => {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox: "unrestricted" },
      });
      const result = await run.call("grep", { pattern: "needle" });
      expect(result.ok, JSON.stringify(result)).toBe(true);
      const lines = String(result.ok ? result.output : "")
        .split("\n")
        .filter((line) => line.endsWith(":1:needle"));
      expect(lines).toHaveLength(4);
      expect(new Set(lines).size).toBe(4);
      expect(lines).toContain(`${JSON.stringify("a\nb.txt")}:1:needle`);
      expect(lines).toContain(`${JSON.stringify('"a\\nb.txt"')}:1:needle`);
      expect(lines).toContain('in"side.txt:1:needle');
      expect(lines).toContain("plain.txt:1:needle");
    });
  }
});
