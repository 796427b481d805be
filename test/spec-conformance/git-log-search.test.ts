/**
 * Spec conformance (/work/shared/spec/agent-tool-catalog.md, "Git and code intelligence"):
 * git_log_search's modes message / pickaxe / both, path, max_results (default 20) and since, on a
 * real repository built with the git CLI, through `agent-tool-catalog/git`. Exactness against
 * git itself on long histories is test/git/git-cli-parity.test.ts. Statement table:
 * docs/spec-conformance.md.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createGitTools, GIT_TOOL_NAMES } from "agent-tool-catalog/git";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitMallocEnvironment } from "../git/support/git-malloc.js";
import { modelError, ok } from "./support.js";

let repository: string;
let run: Run;
const DAY = 86_400;
const START = Date.UTC(2024, 0, 1) / 1000;

/** One commit for `git fast-import`: its message, date and files (path → content). */
interface CommitSpec {
  readonly message: string;
  readonly date: number;
  readonly files: Readonly<Record<string, string>>;
}

/** The whole history in one `git fast-import` process (one git process per commit is seconds under load). */
function importHistory(commits: readonly CommitSpec[]): void {
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}`;
  const stream = commits
    .map((commit) =>
      [
        "commit refs/heads/main",
        `committer Spec Tester <spec@example.com> ${commit.date} +0000`,
        data(commit.message),
        ...Object.entries(commit.files).map(([file, content]) => `M 100644 inline ${file}\n${data(content)}`),
      ].join("\n"),
    )
    .join("\n");
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: repository });
  execFileSync("git", ["fast-import", "--quiet"], { cwd: repository, input: stream, env: gitMallocEnvironment() });
  execFileSync("git", ["reset", "-q", "--hard", "main"], { cwd: repository });
}

beforeAll(async () => {
  repository = await mkdtemp(path.join(tmpdir(), "atc-spec-git-"));
  const commits: CommitSpec[] = [];
  // 25 commits whose message says "fix", one a day; a file per commit.
  for (let index = 0; index < 25; index++) {
    commits.push({
      message: `Fix issue ${index}`,
      date: START + index * DAY,
      files: { [`f${index}.txt`]: `content ${index}\n` },
    });
  }
  // A token added and removed in code, with a message that does not name it.
  commits.push({ message: "Add a constant", date: START + 30 * DAY, files: { "src.ts": "const RARE_TOKEN = 1;\n" } });
  commits.push({
    message: "Remove it; mention RARE_TOKEN here",
    date: START + 31 * DAY,
    files: { "src.ts": "const other = 1;\n" },
  });
  commits.push({ message: "Docs: Ünïcode 🙂 message", date: START + 32 * DAY, files: { "docs.md": "Nothing rare\n" } });
  importHistory(commits);
  run = createRegistry({ tools: createGitTools() }).createRun({ profile: "full", permissions: { workspace: repository } });
  run.activate([...GIT_TOOL_NAMES]);
});
afterAll(async () => {
  await rm(repository, { recursive: true, force: true });
});

interface Found {
  mode: string;
  commits: { subject?: string; message?: string; matched: string[] }[];
  truncated: boolean;
}
const search = async (input: Record<string, unknown>) => ok(await run.call("git_log_search", input)) as Found;
const subjects = (found: Found) => found.commits.map((commit) => (commit.subject ?? commit.message ?? "").split("\n")[0]);

describe("git tools: deferred, read-only", () => {
  it("are the five tools of the spec, deferred and not mutating", () => {
    const tools = createRegistry({ tools: createGitTools() }).list({ tier: "deferred" });
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ["git_blame_context", "git_contributor_context", "git_diff_range", "git_file_history", "git_log_search"].sort(),
    );
    for (const tool of tools) expect(tool.mutating, tool.name).toBe(false);
  });
});

describe("git_log_search: query, mode (message/pickaxe/both), path, max_results (default 20), since", () => {
  it("message matches commit messages (case-insensitive); pickaxe matches added or removed text (exact case)", async () => {
    const message = await search({ query: "rare_token", mode: "message" });
    expect(subjects(message)).toEqual(["Remove it; mention RARE_TOKEN here"]);
    const pickaxe = await search({ query: "RARE_TOKEN", mode: "pickaxe" });
    expect(subjects(pickaxe)).toEqual(["Remove it; mention RARE_TOKEN here", "Add a constant"]);
    expect((await search({ query: "rare_token", mode: "pickaxe" })).commits).toEqual([]);
  });

  it("both (the default) is either, each commit once, saying what matched", async () => {
    const both = await search({ query: "RARE_TOKEN" });
    expect(both.mode).toBe("both");
    expect(subjects(both)).toEqual(["Remove it; mention RARE_TOKEN here", "Add a constant"]);
    expect(both.commits[0]?.matched.sort()).toEqual(["message", "pickaxe"]);
    expect(both.commits[1]?.matched).toEqual(["pickaxe"]);
  });

  it("returns 20 commits by default and says it was cut; max_results 1 to 200", async () => {
    const byDefault = await search({ query: "fix", mode: "message" });
    expect(byDefault.commits).toHaveLength(20);
    expect(byDefault.truncated).toBe(true);
    expect((await search({ query: "fix", mode: "message", max_results: 25 })).truncated).toBe(false);
    expect((await search({ query: "fix", mode: "message", max_results: 200 })).commits).toHaveLength(25);
    expect((await search({ query: "fix", mode: "message", max_results: 1 })).commits).toHaveLength(1);
    modelError(await run.call("git_log_search", { query: "fix", max_results: 201 }), "invalid_input", "max_results");
    modelError(await run.call("git_log_search", { query: "fix", max_results: 0 }), "invalid_input", "max_results");
    modelError(await run.call("git_log_search", { query: "fix", max_results: "20" }), "invalid_input", "max_results");
  });

  it("since takes an ISO date or a relative one, and refuses what it cannot read", async () => {
    // Commits 20-24 are on 2024-01-21 .. 2024-01-25.
    const since = await search({ query: "fix", mode: "message", since: "2024-01-21" });
    expect(subjects(since)).toEqual(["Fix issue 24", "Fix issue 23", "Fix issue 22", "Fix issue 21", "Fix issue 20"]);
    expect((await search({ query: "fix", mode: "message", since: "1 week ago" })).commits).toEqual([]);
    expect((await search({ query: "fix", mode: "message", since: "100 years ago", max_results: 200 })).commits).toHaveLength(25);
    modelError(await run.call("git_log_search", { query: "fix", since: "someday" }), "invalid_since");
  });

  it("path narrows to commits touching it; mode and query are checked; unicode messages match", async () => {
    expect(subjects(await search({ query: "fix", mode: "message", path: "f3.txt" }))).toEqual(["Fix issue 3"]);
    expect(subjects(await search({ query: "ünïcode 🙂", mode: "message" }))).toEqual(["Docs: Ünïcode 🙂 message"]);
    modelError(await run.call("git_log_search", { query: "fix", mode: "regex" }), "invalid_input", "mode");
    modelError(await run.call("git_log_search", { query: "" }), "invalid_input", "query");
    modelError(await run.call("git_log_search", {}), "invalid_input", "query");
    modelError(await run.call("git_log_search", { query: "fix", ref: "no-such-branch" }), "unknown_ref");
  });
});
