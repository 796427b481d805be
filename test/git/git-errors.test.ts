import { cpSync, rmSync } from "node:fs";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitTools, GIT_TOOL_NAMES, type LogSearchOutput } from "../../src/git/index.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { logIds } from "./support/git-oracle.js";
import { failure, gitRun, output } from "./support/git-run.js";
import { buildHistoryFixture, type HistoryFixture } from "./support/history-fixture.js";

let fixture: HistoryFixture;
const cleanup: string[] = [];
const scratch = (prefix: string) => {
  const directory = temporaryDirectory(prefix);
  cleanup.push(directory);
  return directory;
};

beforeAll(() => {
  fixture = buildHistoryFixture("errors");
  cleanup.push(fixture.directory);
});
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

/** One valid call per tool, to check that every tool reports a repository-level problem. */
const EVERY_TOOL: [string, Record<string, unknown>][] = [
  ["git_log_search", { query: "x" }],
  ["git_file_history", { path: "README.md" }],
  ["git_blame_context", { path: "README.md", line: 1 }],
  ["git_diff_range", { from: "HEAD~1" }],
  ["git_contributor_context", {}],
];

describe("repository problems", () => {
  it("says when the run has no workspace and no repositoryPath was given", async () => {
    const run = gitRun(undefined);
    expect(failure(await run.call("git_log_search", { query: "x" }))).toMatchObject({ code: "no_repository" });
  });

  it("refuses a directory that is not in a repository, with every tool", async () => {
    const run = gitRun(scratch("plain"));
    for (const [name, args] of EVERY_TOOL) {
      expect(failure(await run.call(name, args)), name).toMatchObject({ code: "not_a_git_repository" });
    }
  });

  it("reports an empty repository (no commits) with every tool", async () => {
    const empty = FixtureRepository.create("empty");
    cleanup.push(empty.directory);
    const run = gitRun(empty.directory);
    for (const [name, args] of EVERY_TOOL) {
      const error = failure(await run.call(name, args));
      expect(error, name).toMatchObject({ code: "empty_repository" });
      expect(error.message).toContain("no commits");
    }
  });

  it("on an unborn branch (checkout --orphan) beside branches with commits, names them; with ref one of them, answers as git", async () => {
    const orphan = FixtureRepository.create("orphan");
    cleanup.push(orphan.directory);
    orphan.write("a.txt", "one\n").commit("first needle", { name: "Ann", email: "ann@example.com" });
    orphan.git("checkout", "-q", "--orphan", "fresh");
    expect(() => orphan.git("log")).toThrow(/does not have any commits yet/);
    const run = gitRun(orphan.directory);
    for (const [name, args] of EVERY_TOOL) {
      const error = failure(await run.call(name, args));
      expect(error, name).toMatchObject({ code: "empty_repository" });
      expect(error.message, name).toContain("refs/heads/fresh");
      expect(error.message, name).not.toContain("The repository has no commits");
      expect(error.hint, name).toContain("main");
    }
    // Control: naming the branch that has commits answers as git log main does.
    const found = output<LogSearchOutput>(await run.call("git_log_search", { query: "needle", ref: "main" }));
    expect(found.commits.map((commit) => commit.sha)).toEqual(logIds(orphan.directory, ["main"]).map((id) => id.slice(0, 10)));
  });

  it("reports a shallow clone when the answer needs history it does not have", async () => {
    const shallow = path.join(scratch("shallow"), "clone");
    git(fixture.directory, ["clone", "-q", "--depth", "1", `file://${fixture.directory}`, shallow]);
    const run = gitRun(shallow);
    for (const [name, args] of EVERY_TOOL) {
      const error = failure(await run.call(name, args));
      expect(error, name).toMatchObject({ code: "shallow_clone" });
      expect(error.hint).toContain("git fetch --unshallow");
    }
    // What the clone does have still works.
    const diff = output<{ files: unknown[] }>(await run.call("git_diff_range", { from: "HEAD", to: "HEAD" }));
    expect(diff.files).toEqual([]);
  });

  it("answers from a deeper shallow clone when the answer lies before the boundary", async () => {
    const shallow = path.join(scratch("shallow3"), "clone");
    git(fixture.directory, ["clone", "-q", "--depth", "3", `file://${fixture.directory}`, shallow]);
    const run = gitRun(shallow);
    const found = output<LogSearchOutput>(await run.call("git_log_search", { query: "needle", max_results: 1 }));
    expect(found.commits.map((commit) => commit.subject)).toEqual(["Remove needle from main"]);
    expect(found.truncated).toBe(true);
    expect(found.omitted).toContain("shallow clone");
  });

  it("reports objects missing outside a shallow boundary (a partial clone) as missing_object", async () => {
    const copy = path.join(scratch("partial"), "repo");
    cpSync(fixture.directory, copy, { recursive: true });
    const blob = git(copy, ["rev-parse", "HEAD:README.md"]).trim();
    rmSync(path.join(copy, ".git", "objects", blob.slice(0, 2), blob.slice(2)));
    const error = failure(await gitRun(copy).call("git_blame_context", { path: "README.md", line: 1 }));
    expect(error).toMatchObject({ code: "missing_object" });
    expect(error.message).toContain(blob.slice(0, 10));
  });

  it("reads a linked worktree, a bare repository and a subdirectory of a repository", async () => {
    const copy = path.join(scratch("worktree"), "repo");
    cpSync(fixture.directory, copy, { recursive: true });
    const worktree = path.join(path.dirname(copy), "feature-tree");
    git(copy, ["worktree", "add", "-q", worktree, "feature"]);
    const onFeature = output<LogSearchOutput>(
      await gitRun(worktree).call("git_log_search", { query: "feature", mode: "message" }),
    );
    expect(onFeature.commits.map((commit) => commit.sha)).toEqual(
      logIds(worktree, ["-i", "-F", "--grep=feature"]).map((id) => id.slice(0, 10)),
    );

    const bare = path.join(path.dirname(copy), "bare.git");
    git(copy, ["clone", "-q", "--bare", copy, bare]);
    const bareRun = gitRun(scratch("elsewhere"), { repositoryPath: bare });
    const blame = output<{ lines: { text: string }[] }>(
      await bareRun.call("git_blame_context", { path: "README.md", line: 1, context: 0 }),
    );
    expect(blame.lines.map((line) => line.text)).toEqual(["# Demo"]);

    const nested = gitRun(path.join(fixture.directory, "src"));
    const history = output<{ path: string }>(await nested.call("git_file_history", { path: "main.ts" }));
    expect(history.path).toBe("src/main.ts");
  });

  it("does not look above the workspace under the workspace sandbox", async () => {
    const inner = path.join(fixture.directory, "src");
    const confined = gitRun(inner, {}, "workspace");
    const error = failure(await confined.call("git_log_search", { query: "x" }));
    expect(error).toMatchObject({ code: "not_a_git_repository" });
    expect(error.message).toContain("sandbox");
    // A host that names the repository explicitly may still confine paths to the workspace.
    const named = gitRun(inner, { repositoryPath: fixture.directory }, "workspace");
    expect(failure(await named.call("git_blame_context", { path: "../README.md", line: 1 }))).toMatchObject({
      code: "path_outside_repository",
    });
    expect(output<{ path: string }>(await named.call("git_blame_context", { path: "main.ts", line: 1 })).path).toBe(
      "src/main.ts",
    );
  });
});

describe("bad input", () => {
  it("names unknown refs and suggests real ones; refuses ranges and non-commits", async () => {
    const run = gitRun(fixture.directory);
    const unknown = failure(await run.call("git_diff_range", { from: "featur" }));
    expect(unknown).toMatchObject({ code: "unknown_ref" });
    expect(unknown.hint).toContain("feature");
    expect(failure(await run.call("git_diff_range", { from: "HEAD~50" }))).toMatchObject({ code: "unknown_ref" });
    // A range is read in from alone (test/spec-conformance/behaviour-variants.test.ts); as one side it is refused.
    expect(failure(await run.call("git_diff_range", { from: "main", to: "main..feature" }))).toMatchObject({
      code: "invalid_ref",
      hint: expect.stringContaining("range (A..B, A...B) in from"),
    });
    const tree = git(fixture.directory, ["rev-parse", "HEAD^{tree}"]).trim();
    expect(failure(await run.call("git_diff_range", { from: tree }))).toMatchObject({ code: "invalid_ref" });
    expect(failure(await run.call("git_diff_range", { from: "deadbeef" }))).toMatchObject({ code: "unknown_ref" });
    const short = fixture.commits.move.slice(0, 7);
    const viaShortId = output<{ from: string }>(await run.call("git_diff_range", { from: short, to: "v2" }));
    expect(viaShortId.from).toBe(`${short} (${fixture.commits.move.slice(0, 10)})`);
    expect(
      output<{ files: unknown[] }>(await run.call("git_diff_range", { from: "v2", to: fixture.commits.move })).files,
    ).toEqual([]);
    const merged = output<{ files: { path: string }[] }>(await run.call("git_diff_range", { from: "HEAD~5^2", to: "HEAD~5^1" }));
    expect(merged.files.map((file) => file.path)).toEqual(
      git(fixture.directory, ["diff", "--name-only", "-M", "HEAD~5^2", "HEAD~5^1"]).trim().split("\n"),
    );
  });

  it("refuses paths outside the repository or inside .git", async () => {
    const run = gitRun(fixture.directory);
    for (const bad of ["../outside.txt", "/etc/passwd", ".git/config", "src/../../x"]) {
      expect(failure(await run.call("git_file_history", { path: bad })), bad).toMatchObject({ code: "path_outside_repository" });
    }
  });

  it("explains blame requests it cannot answer", async () => {
    const run = gitRun(fixture.directory);
    const blame = async (args: Record<string, unknown>) => failure(await run.call("git_blame_context", args));
    expect(await blame({ path: "assets/logo.png", line: 1 })).toMatchObject({ code: "binary_file" });
    expect(await blame({ path: "src", line: 1 })).toMatchObject({ code: "not_a_file" });
    expect(await blame({ path: "src/app.ts", line: 1 })).toMatchObject({ code: "path_not_found" });
    expect(await blame({ path: "README.md", line: 40 })).toMatchObject({
      code: "line_out_of_range",
      message: expect.stringContaining("has 4 lines"),
    });
    expect(await blame({ path: "README.md" })).toMatchObject({ code: "line_out_of_range" });
    expect(await blame({ path: "README.md", start_line: 3, end_line: 2 })).toMatchObject({ code: "line_out_of_range" });
    const clamped = output<{ range: unknown; omitted: string; truncated: boolean }>(
      await run.call("git_blame_context", { path: "README.md", start_line: 2, end_line: 99 }),
    );
    expect(clamped).toMatchObject({ range: { start: 2, end: 4 }, truncated: false, omitted: "The file ends at line 4." });
  });

  it("rejects since values it does not understand, and paths no commit touched", async () => {
    const run = gitRun(fixture.directory);
    const error = failure(await run.call("git_log_search", { query: "x", since: "last friday" }));
    expect(error).toMatchObject({ code: "invalid_since", hint: expect.stringContaining("2 weeks ago") });
    expect(failure(await run.call("git_file_history", { path: "nope.txt" }))).toMatchObject({ code: "path_not_found" });
    expect(failure(await run.call("git_log_search", { query: "" }))).toMatchObject({ code: "invalid_input" });
    expect(failure(await run.call("git_log_search", { query: "x", max_results: 500 }))).toMatchObject({ code: "invalid_input" });
  });
});

describe("registration", () => {
  it("makes five deferred, read-only tools that find_tool can find, also as a group", async () => {
    const tools = createGitTools();
    expect(tools.map((tool) => tool.name)).toEqual([...GIT_TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool).toMatchObject({ tier: "deferred", mutating: false, annotations: { readOnlyHint: true } });
      expect(tool.tags).toContain("git");
    }
    const { gitToolGroup } = await import("../../src/git/index.js");
    const run = createRegistry({ groups: [gitToolGroup()] }).createRun({ permissions: { workspace: fixture.directory } });
    expect(failure(await run.call("git_log_search", { query: "x" }))).toMatchObject({ code: "tool_not_activated" });
    expect(run.search("who last changed these lines blame").map((hit) => hit.name)).toContain("git_blame_context");
  });

  it("stops when the call is aborted", async () => {
    const run = gitRun(fixture.directory);
    const error = failure(await run.call("git_contributor_context", {}, { signal: AbortSignal.abort() }));
    expect(error.code).toBe("aborted");
  });

  it("keeps parsed objects across calls and tool sets that share a cache", async () => {
    const { createGitCache } = await import("../../src/git/index.js");
    const cache = createGitCache();
    const reads: string[] = [];
    const { promises } = await import("node:fs");
    const counting = {
      promises: {
        ...promises,
        readFile: (file: string, options?: unknown) => {
          reads.push(String(file));
          return promises.readFile(file, options as undefined);
        },
      },
    };
    const first = gitRun(fixture.directory, { fs: counting, cache });
    await first.call("git_log_search", { query: "needle" });
    const objectReads = () => reads.filter((file) => file.includes(`${path.sep}objects${path.sep}`)).length;
    const cold = objectReads();
    const second = gitRun(fixture.directory, { fs: counting, cache });
    await second.call("git_log_search", { query: "needle" });
    expect(cold).toBeGreaterThan(20);
    expect(objectReads()).toBe(cold);
  });
});
