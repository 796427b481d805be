/**
 * `createGitCache({ maxBytes })`, `instrumentRegistry({ maxContentLength })` and
 * `createDefaultCatalog({ agentDepth })` against hostile values, refused where given
 * (`invalid_option` naming the option). Before: a `NaN` cache budget compared false with every
 * weight, so the caches never forgot anything; a `NaN` content length recorded every value as an
 * empty string; a fractional `agentDepth` reached the groups. Positive controls: 0 and Infinity
 * as documented, with git tools reading a real repository through such caches.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createDefaultCatalog } from "agent-tool-catalog/catalog";
import { createGitCache, createGitTools } from "agent-tool-catalog/git";
import { instrumentRegistry } from "agent-tool-catalog/otel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectRuleHolds } from "../support/hostile-options.js";

describe("git, otel and catalog options: refused where given unless the documented rule accepts them", () => {
  it("createGitCache maxBytes: a whole number at least 0, or Infinity", async () => {
    await expectRuleHolds("maxBytes", (maxBytes) => createGitCache({ maxBytes }), { min: 0, integer: true, infinite: true });
  });

  it("instrumentRegistry maxContentLength: a whole number at least 0, or Infinity", async () => {
    await expectRuleHolds(
      "maxContentLength",
      (maxContentLength) => instrumentRegistry(createRegistry(), { maxContentLength })(),
      { min: 0, integer: true, infinite: true },
    );
  });

  it("createDefaultCatalog agentDepth: a whole number at least 0", async () => {
    await expectRuleHolds("agentDepth", (agentDepth) => createDefaultCatalog({ agentDepth }).registry.close(), {
      min: 0,
      integer: true,
    });
  });
});

describe("positive controls: git tools read a real repository through caches of 0 and Infinity bytes", () => {
  let repository: string;
  beforeAll(async () => {
    repository = await mkdtemp(path.join(tmpdir(), "atc-git-options-"));
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@example.com", ...args], { cwd: repository });
    git("init", "-q");
    await writeFile(path.join(repository, "a.txt"), "one\n");
    git("add", "a.txt");
    git("commit", "-q", "-m", "add the first file");
  });
  afterAll(async () => rm(repository, { recursive: true, force: true }));

  for (const maxBytes of [0, Number.POSITIVE_INFINITY]) {
    it(`maxBytes ${maxBytes}`, async () => {
      const registry = createRegistry({
        tools: createGitTools({ repositoryPath: repository, cache: createGitCache({ maxBytes }) }),
      });
      try {
        const run = registry.createRun({ profile: "full" });
        await run.activate(["git_log_search"]);
        const result = await run.call("git_log_search", { query: "first", mode: "message" });
        expect(result.ok, JSON.stringify(result)).toBe(true);
        expect(JSON.stringify(result)).toContain("add the first file");
      } finally {
        await registry.close();
      }
    });
  }
});
