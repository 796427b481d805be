/**
 * Red team round 9: `grep` on one named file over its 8 MiB limit answered "No matches", since
 * both engines skip such files: the model read that as "not in this file" (a 50 MB log holding
 * the pattern on every line). A file named on its own is now `too_large` with a way forward.
 */
import { mkdtemp, rm, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-size-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const LIMIT = 8 * 1024 * 1024;

describe("grep on one file over the size limit", () => {
  for (const sandbox of ["unrestricted", "workspace"] as const) {
    it(`${sandbox}: a named file of 8 MiB + 1 byte is too_large, not "No matches"; one of exactly 8 MiB is searched`, async () => {
      const big = path.join(workspace, "big.log");
      await writeFile(big, "needle\n");
      await truncate(big, LIMIT + 1);
      const edge = path.join(workspace, "edge.log");
      await writeFile(edge, "needle\n");
      await truncate(edge, LIMIT);
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox, workspace } });
      const refused = await run.call("grep", { pattern: "needle", path: "big.log" });
      expect(refused).toMatchObject({ ok: false, error: { code: "too_large" } });
      expect(refused.ok ? "" : refused.error.message).toContain(String(LIMIT + 1));
      // Control: at the limit the file is searched (its NUL padding makes it binary, so a text
      // file of the same size is used for the match itself).
      const text = path.join(workspace, "text.log");
      await writeFile(text, `needle\n${"x".repeat(LIMIT - 8)}\n`);
      expect(await run.call("grep", { pattern: "needle", path: "text.log" })).toMatchObject({
        ok: true,
        output: expect.stringContaining("text.log:1:needle"),
      });
      expect(await run.call("grep", { pattern: "needle", path: "edge.log" })).toMatchObject({ ok: true });
      await registry.close();
    });
  }
});
