/**
 * Unusual but legal repositories an agent meets: SHA-256 object ids, replace refs and grafts,
 * odd file names, a .mailmap. Each answer is the git CLI's, or a structured error the model can
 * act on (never a misleading one), with a control on an ordinary repository.
 */
import { afterAll, describe, expect, it } from "vitest";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { failure, gitRun, output } from "./support/git-run.js";

const author = { name: "Ada", email: "ada@example.com" };
const cleanup: string[] = [];
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

function repository(prefix: string, ...initArguments: string[]): FixtureRepository {
  const directory = temporaryDirectory(prefix);
  cleanup.push(directory);
  git(directory, ["init", "-q", ...initArguments]);
  return new FixtureRepository(directory);
}

const EVERY_TOOL: readonly (readonly [string, Record<string, unknown>])[] = [
  ["git_log_search", { query: "needle" }],
  ["git_file_history", { path: "a.txt" }],
  ["git_blame_context", { path: "a.txt", line: 1 }],
  ["git_diff_range", { from: "HEAD~1" }],
  ["git_contributor_context", {}],
];

describe("object formats", () => {
  it("a SHA-256 repository is refused as unsupported, not reported as a broken ref to repair", async () => {
    const sha256 = repository("sha256", "--object-format=sha256");
    sha256.write("a.txt", "one\n").commit("first needle", author);
    sha256.write("a.txt", "two\n").commit("second", author);
    expect(git(sha256.directory, ["rev-parse", "HEAD"]).trim()).toMatch(/^[0-9a-f]{64}$/);
    const run = gitRun(sha256.directory);
    for (const [name, input] of EVERY_TOOL) {
      const error = failure(await run.call(name, input));
      expect(error.code, name).toBe("not_a_git_repository");
      expect(error.message, name).toContain("SHA256");
      expect(error.hint, name).toContain("not damaged");
    }
  });

  it("control: the same history in a SHA-1 repository (objectFormat set explicitly) is read", async () => {
    const sha1 = repository("sha1", "--object-format=sha1");
    git(sha1.directory, ["config", "core.repositoryFormatVersion", "1"]);
    git(sha1.directory, ["config", "extensions.objectFormat", "sha1"]);
    sha1.write("a.txt", "one\n").commit("first needle", author);
    sha1.write("a.txt", "two\n").commit("second", author);
    const run = gitRun(sha1.directory);
    for (const [name, input] of EVERY_TOOL) expect((await run.call(name, input)).ok, name).toBe(true);
    const found = output<{ commits: { sha: string }[] }>(await run.call("git_log_search", { query: "needle" }));
    expect(found.commits.map((commit) => commit.sha)).toEqual([
      git(sha1.directory, ["rev-parse", "--short=10", "HEAD~1"]).trim(),
    ]);
  });
});
