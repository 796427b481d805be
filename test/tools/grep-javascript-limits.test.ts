import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("grep's JavaScript engine: overall time limit, files it cannot open", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-js-limits-"));
    // 24 MiB of short lines: seconds of quick matches, never one slow piece.
    await writeFile(path.join(workspace, "big.txt"), "a line with the word needle in it\n".repeat(740_000));
    await writeFile(path.join(workspace, "locked.txt"), "needle locked\n".repeat(400_000));
    await writeFile(path.join(workspace, "small.txt"), "needle small\n");
  });
  afterAll(async () => {
    await chmod(path.join(workspace, "locked.txt"), 0o644).catch(() => undefined);
    await rm(workspace, { recursive: true, force: true });
  });
  const runFor = (searchTimeoutMs: number) =>
    createRegistry({ tools: [createGrepTool({ engine: "javascript", searchTimeoutMs })] }).createRun({
      profile: "full",
      permissions: { workspace, sandbox: "unrestricted" },
    });

  it("stops after searchTimeoutMs with `timeout`, as ripgrep does", async () => {
    const started = performance.now();
    // 1 ms: reading 24 MiB alone takes longer on any machine, so an idle machine cannot finish first
    // (100 ms was met by an idle 2-core machine).
    const result = await runFor(1).call("grep", { pattern: "never in the file", path: "big.txt" });
    expect(result.ok ? "ok" : result.error.code).toBe("timeout");
    // The code says the deadline stopped it; the bound is a hang guard (5 s, at load 20 on 2 cores,
    // measured the machine's share of a worker's start and end).
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 60_000);

  it("finishes within a limit it can meet (control)", async () => {
    const result = await runFor(60_000).call("grep", { pattern: "needle", path: "small.txt" });
    expect(result.ok && String(result.output)).toMatch(/^small\.txt:1:needle small\n/);
  });

  it.skipIf(process.getuid?.() === 0)(
    "names a large file it cannot open instead of skipping it silently",
    async () => {
      await chmod(path.join(workspace, "locked.txt"), 0);
      const result = await runFor(60_000).call("grep", { pattern: "needle small", max_results: 5 });
      const output = String(result.ok ? result.output : "");
      expect(output).toContain("small.txt:1:needle small");
      expect(output).toMatch(/\[not searched: locked\.txt \(could not be opened: EACCES\)\]/);
    },
    60_000,
  );

  it.skipIf(process.getuid?.() === 0)("names a named file it cannot read instead of answering a bare No matches", async () => {
    await writeFile(path.join(workspace, "locked-small.txt"), "needle\n");
    await chmod(path.join(workspace, "locked-small.txt"), 0);
    const result = await runFor(60_000).call("grep", { pattern: "needle", path: "locked-small.txt" });
    const output = result.ok ? String(result.output) : result.error.code;
    expect(output).not.toMatch(/^No matches[^\n]*\n\[engine/);
  });
});
