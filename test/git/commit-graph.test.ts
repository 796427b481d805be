/**
 * The commit-graph reader against git's own answers: every commit's tree, parents and committer
 * date as `git log` prints them (octopus merges included), for a single graph file and a split
 * chain; and the tools' answers with a graph, without one and with a stale one (commits added
 * after it was written) are git's.
 */
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BlameOutput } from "../../src/git/blame-tool.js";
import type { ContributorOutput } from "../../src/git/contributor-tool.js";
import type { FileHistoryOutput } from "../../src/git/file-history-tool.js";
import { createGitCache } from "../../src/git/git-cache.js";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import type { LogSearchOutput } from "../../src/git/log-search-tool.js";
import { CommitGraph, murmur3 } from "../../src/git/objects/commit-graph.js";
import { NodeObjectStore, objectDirectories } from "../../src/git/objects/node-object-store.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";
import { writeLongHistory } from "./support/long-history.js";

const gitCapability = capability("git");
const AUTHOR = { name: "Graph Tester", email: "graph@example.com" };

interface Expected {
  readonly tree: string;
  readonly parents: string[];
  readonly time: number;
}

/** Every commit reachable from any ref, as `git log` prints it. */
function gitCommits(directory: string): Map<string, Expected> {
  const commits = new Map<string, Expected>();
  for (const line of git(directory, ["log", "--all", "--format=%H %T %ct %P"]).trim().split("\n")) {
    const [oid = "", tree = "", time = "0", ...parents] = line.trim().split(" ");
    commits.set(oid, { tree, parents, time: Number(time) });
  }
  return commits;
}

/** Generation numbers as git defines them (v1): 1 for a root, else one more than the highest parent's. */
function generations(commits: Map<string, Expected>): Map<string, number> {
  const levels = new Map<string, number>();
  const level = (oid: string): number => {
    const known = levels.get(oid);
    if (known !== undefined) return known;
    const stack = [oid];
    while (stack.length > 0) {
      const top = stack[stack.length - 1] as string;
      const missing = (commits.get(top)?.parents ?? []).filter((parent) => !levels.has(parent));
      if (missing.length > 0) stack.push(...missing);
      else {
        stack.pop();
        levels.set(top, 1 + Math.max(0, ...(commits.get(top)?.parents ?? []).map((parent) => levels.get(parent) ?? 0)));
      }
    }
    return levels.get(oid) ?? 0;
  };
  for (const oid of commits.keys()) level(oid);
  return levels;
}

function openStore(directory: string): NodeObjectStore {
  const reader = unconfinedReader();
  return new NodeObjectStore(objectDirectories(path.join(directory, ".git", "objects"), reader), reader);
}

function expectGraphMatches(directory: string, expectedCount: number): void {
  const store = openStore(directory);
  const graph = store.commitGraph();
  expect(graph).toBeDefined();
  expect(graph?.count).toBe(expectedCount);
  const commits = gitCommits(directory);
  const levels = generations(commits);
  for (const [oid, expected] of commits) {
    const found = graph?.lookup(oid);
    expect(found?.position).toBeGreaterThanOrEqual(0);
    expect({ oid, ...found, position: 0 }).toEqual({ oid, ...expected, generation: levels.get(oid), position: 0 });
  }
  // Not every id is a commit in the graph: a tree is not.
  expect(graph?.lookup([...commits.values()][0]?.tree ?? "")).toBeUndefined();
  store.close();
}

describe.skipIf(gitCapability.missing)(gitCapability.label("the commit-graph reader"), () => {
  let repository: FixtureRepository;
  const cleanup: string[] = [];

  beforeAll(() => {
    const directory = temporaryDirectory("graph");
    cleanup.push(directory);
    git(directory, ["init", "-q"]);
    writeLongHistory(directory, { commits: 400, files: 60 });
    repository = new FixtureRepository(directory);
    git(directory, ["checkout", "-q", "-f", "main"]);
    // An octopus merge: its second and third parents go to the graph's EDGE chunk.
    for (const branch of ["octo-a", "octo-b", "octo-c"]) {
      repository.git("checkout", "-q", "-b", branch, "main");
      repository.write(`${branch}.txt`, `${branch}\n`).commit(`on ${branch}`, AUTHOR);
    }
    repository.git("checkout", "-q", "main");
    repository.git(
      "-c",
      "user.name=Graph Tester",
      "-c",
      "user.email=graph@example.com",
      "merge",
      "-q",
      "--no-ff",
      "-m",
      "octopus",
      "octo-a",
      "octo-b",
      "octo-c",
    );
    git(directory, ["commit-graph", "write", "--reachable"]);
  }, 120_000);

  afterAll(() => {
    for (const directory of cleanup) removeDirectory(directory);
  });

  it("gives every commit's tree, parents (octopus included), date and generation as git log does", () => {
    const octopus = git(repository.directory, ["log", "-1", "--format=%P"]).trim().split(" ");
    expect(octopus).toHaveLength(4);
    expectGraphMatches(repository.directory, gitCommits(repository.directory).size);
  });

  it("reads a graph file a page at a time where it is asked, with the answers of the whole file", () => {
    const file = path.join(repository.directory, ".git", "objects", "info", "commit-graph");
    const bytes = readFileSync(file);
    const counts = { bytes: 0, reads: 0 };
    const source = (content: Buffer) => ({
      size: content.length,
      read(target: Buffer, offset: number, length: number, position: number) {
        const copied = content.copy(target, offset, position, Math.min(content.length, position + length));
        counts.bytes += copied;
        counts.reads++;
        return copied;
      },
      close() {},
    });
    // 512-byte pages: the fixture's graph (400 commits) is about 24 KB.
    const paged = CommitGraph.open([source(bytes)], 9);
    const whole = CommitGraph.parse([bytes]);
    const commits = gitCommits(repository.directory);
    const head = git(repository.directory, ["rev-parse", "HEAD"]).trim();
    expect(paged?.lookup(head)).toEqual(whole?.lookup(head));
    expect(paged?.lookup(head)?.tree).toBe(commits.get(head)?.tree);
    // The header, the fan-out table, one bucket of ids, one commit's row and its parents' ids.
    expect(counts.bytes).toBeLessThan(bytes.length / 4);
    for (const oid of commits.keys()) {
      expect(paged?.lookup(oid)).toEqual(whole?.lookup(oid));
      const position = paged?.positionOf(oid) ?? -1;
      expect(paged?.parentPositions(position)).toEqual(whole?.parentPositions(position));
      expect(paged?.timeOf(position)).toBe(whole?.timeOf(position));
      expect(paged?.treeOf(position)).toBe(whole?.treeOf(position));
    }
    // A lookup of every commit touches every page: once a quarter of the pages were read a page
    // at a time, the rest came in one read (the pages read between read again: at most a quarter
    // of the file more), not a read per page.
    const pages = Math.ceil(bytes.length / 512);
    expect(pages).toBeGreaterThanOrEqual(32);
    expect(counts.reads).toBeLessThanOrEqual(Math.floor(pages / 4) + 1);
    expect(counts.bytes).toBeLessThanOrEqual(bytes.length * 1.25 + 512);
    // A file that comes back short when a page is read is refused as corrupt, not read as garbage.
    const short = {
      ...source(bytes),
      read: (target: Buffer, offset: number, length: number, position: number) =>
        position < 2048 ? bytes.copy(target, offset, position, position + length) : 0,
    };
    const truncated = CommitGraph.open([short], 9);
    expect(() => truncated?.lookup(head)).toThrow(/commit-graph file is truncated/);
  });

  it("reads a split chain (a base graph and a layer over it), positions counted across layers", () => {
    const copy = temporaryDirectory("graph-split");
    cleanup.push(copy);
    git(copy, ["clone", "-q", "--no-local", repository.directory, "."]);
    git(copy, ["commit-graph", "write", "--reachable", "--split"]);
    const clone = new FixtureRepository(copy);
    for (let round = 0; round < 5; round++) clone.write("split.txt", `round ${round}\n`).commit(`split ${round}`, AUTHOR);
    git(copy, ["commit-graph", "write", "--reachable", "--split=no-merge"]);
    const chain = git(copy, ["rev-parse", "--git-path", "objects/info/commit-graphs/commit-graph-chain"]).trim();
    expect(git(copy, ["show", "--no-patch", "--format=%H", "HEAD"]).trim()).toMatch(/^[0-9a-f]{40}$/);
    expect(readFileSync(path.resolve(copy, chain), "utf8").trim().split("\n").length).toBe(2);
    expectGraphMatches(copy, gitCommits(copy).size);
  });

  it("gives git's answers with a stale graph (commits after it) and without a graph", async () => {
    const directory = repository.directory;
    // Commits made after the graph was written: the walk reads these from the objects.
    for (let round = 0; round < 6; round++) {
      repository.write("late/notes.md", `late round ${round}\n`).commit(`late change ${round} refactor`, AUTHOR);
    }
    const file = "late/notes.md";
    const answers = async () => {
      const run = gitRun(directory);
      const history = output<FileHistoryOutput>(await run.call("git_file_history", { path: file, max_results: 50 }));
      const search = output<LogSearchOutput>(
        await run.call("git_log_search", { query: "refactor", mode: "message", max_results: 200 }),
      );
      const contributors = output<ContributorOutput>(await run.call("git_contributor_context", { max_results: 100 }));
      return {
        history: history.commits.map((commit) => commit.sha),
        search: search.commits.map((commit) => commit.sha),
        contributors: contributors.contributors.map((contributor) => [contributor.email, contributor.commits]),
        total: contributors.total_commits,
      };
    };
    const short = (text: string) =>
      text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.slice(0, 10));
    const stale = await answers();
    expect(stale.history).toEqual(short(git(directory, ["log", "--format=%H", "-n", "50", "--", file])));
    expect(stale.search).toEqual(short(git(directory, ["log", "-i", "-F", "--grep=refactor", "-n", "200", "--format=%H"])));
    expect(stale.total).toBe(Number(git(directory, ["rev-list", "--count", "HEAD"]).trim()));
    const store = openStore(directory);
    const head = git(directory, ["rev-parse", "HEAD"]).trim();
    expect(store.commitGraph()?.lookup(head)).toBeUndefined();
    store.close();
    // Without the graph, the same answers.
    rmSync(path.join(directory, ".git", "objects", "info", "commit-graph"));
    expect(await answers()).toEqual(stale);
    // A fresh graph, the same answers again.
    git(directory, ["commit-graph", "write", "--reachable"]);
    expect(await answers()).toEqual(stale);
  });

  it("answers repeated message searches from its message cache as git does: non-ASCII messages, a new graph, a small budget", async () => {
    const copy = temporaryDirectory("graph-messages");
    cleanup.push(copy);
    git(copy, ["clone", "-q", "--no-local", repository.directory, "."]);
    const clone = new FixtureRepository(copy);
    // Non-ASCII messages are decoded and lower-cased (never kept as folded bytes); ASCII ones are kept.
    const subjects = ["Réglage: REFACTOR the parser", "ÜBER-refactor", "Plain Refactor of io", "nothing to see"];
    for (const [index, subject] of subjects.entries()) clone.write("messages.txt", `${index}\n`).commit(subject, AUTHOR);
    git(copy, ["commit-graph", "write", "--reachable"]);
    const expected = (query: string) =>
      git(copy, ["log", "-i", "-F", `--grep=${query}`, "-n", "200", "--format=%H"])
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.slice(0, 10));
    const search = async (run: ReturnType<typeof gitRun>, query: string) =>
      output<LogSearchOutput>(await run.call("git_log_search", { query, mode: "message", max_results: 200 })).commits.map(
        (commit) => commit.sha,
      );
    // The default budget keeps every message; 150 KB keeps the offset tables and only some messages.
    for (const cache of [createGitCache(), createGitCache({ maxBytes: 150_000 })]) {
      const run = gitRun(copy, { cache });
      for (let round = 0; round < 2; round++) {
        for (const query of ["refactor", "REFACTOR THE", "io", "no such words"]) {
          expect(await search(run, query), `${query}, round ${round}`).toEqual(expected(query));
        }
      }
      expect((await search(run, "refactor")).length).toBeGreaterThan(3);
      expect(await search(run, "über")).toHaveLength(1);
    }
    // A new commit and a new graph: positions change, so the cache starts over and stays right.
    const cache = createGitCache();
    const run = gitRun(copy, { cache });
    expect(await search(run, "refactor")).toEqual(expected("refactor"));
    clone.write("messages.txt", "late\n").commit("late refactor", AUTHOR);
    rmSync(path.join(copy, ".git", "objects", "info", "commit-graph"));
    git(copy, ["commit-graph", "write", "--reachable"]);
    expect(await search(gitRun(copy, { cache }), "refactor")).toEqual(expected("refactor"));
    cache.clear();
    expect(await search(gitRun(copy, { cache }), "refactor")).toEqual(expected("refactor"));
  });

  it("reads changed-path Bloom filters as git writes them: no changed path is ever denied, most unchanged ones are", () => {
    // git's own murmur3 vectors (t0095-bloom.sh), then the filters of a real graph.
    expect(murmur3(0, Buffer.from(""))).toBe(0);
    expect(murmur3(0, Buffer.from("Hello world!"))).toBe(0x627b0c2c);
    expect(murmur3(0, Buffer.from("The quick brown fox jumps over the lazy dog"))).toBe(0x2e4ff723);
    const copy = temporaryDirectory("graph-bloom");
    cleanup.push(copy);
    git(copy, ["clone", "-q", "--no-local", repository.directory, "."]);
    git(copy, ["commit-graph", "write", "--reachable", "--changed-paths"]);
    const store = openStore(copy);
    const graph = store.commitGraph();
    expect(graph?.hasBloomFilters).toBe(true);
    const every = new Set(git(copy, ["ls-tree", "-r", "-t", "--name-only", "HEAD"]).trim().split("\n"));
    // What each commit changed against its first parent (what its filter holds), merges included.
    const log = git(copy, ["log", "--first-parent", "--diff-merges=first-parent", "--name-only", "--format=%x01%H", "-n", "150"]);
    let unchanged = 0;
    let denied = 0;
    for (const block of log.split("\u0001").slice(1)) {
      const [oid = "", ...files] = block.trim().split("\n");
      const position = graph?.lookup(oid)?.position ?? -1;
      const changed = new Set<string>();
      for (const file of files.filter((line) => line !== "")) {
        for (let end = file.length; end > 0; end = file.lastIndexOf("/", end - 1)) changed.add(file.slice(0, end));
      }
      for (const name of changed)
        expect({ oid, name, maybe: graph?.pathMayHaveChanged(position, name) }).toEqual({ oid, name, maybe: true });
      for (const name of every) {
        if (changed.has(name)) continue;
        unchanged++;
        if (graph?.pathMayHaveChanged(position, name) === false) denied++;
      }
    }
    // Ten bits per path and seven hashes: false positives are rare; wrong keys would deny almost nothing.
    expect(denied / unchanged).toBeGreaterThan(0.9);
    store.close();
  });

  it("gives git's answers for path-limited history, contributors and blame with Bloom filters", async () => {
    const copy = temporaryDirectory("graph-bloom-answers");
    cleanup.push(copy);
    git(copy, ["clone", "-q", "--no-local", repository.directory, "."]);
    git(copy, ["commit-graph", "write", "--reachable", "--changed-paths"]);
    const files = git(copy, ["log", "-n", "300", "--diff-filter=M", "--format=", "--name-only"]).trim().split("\n");
    const file = files.find((name) => name.includes("/")) ?? files[0] ?? "";
    const directory = path.posix.dirname(file);
    const run = gitRun(copy);
    const short = (text: string) =>
      text
        .trim()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => line.slice(0, 10));
    for (const scope of [file, directory]) {
      const history = output<FileHistoryOutput>(
        await run.call("git_file_history", { path: scope, max_results: 200, follow_renames: false }),
      );
      expect(history.commits.map((commit) => commit.sha)).toEqual(
        short(git(copy, ["log", "--format=%H", "-n", "200", "--", scope])),
      );
    }
    const contributors = output<ContributorOutput>(
      await run.call("git_contributor_context", { path: directory, max_results: 100 }),
    );
    expect(contributors.total_commits).toBe(Number(git(copy, ["rev-list", "--count", "HEAD", "--", directory]).trim()));
    const blamed = output<BlameOutput>(
      await run.call("git_blame_context", { path: file, start_line: 1, end_line: 60, context: 0 }),
    );
    const expected = git(copy, ["blame", "--porcelain", "-L", "1,60", "HEAD", "--", file])
      .split("\n")
      .map((line) => /^([0-9a-f]{40}) \d+ (\d+)/.exec(line))
      .filter((match) => match !== null)
      .map((match) => `${match[2]}:${match[1]?.slice(0, 10)}`);
    expect(blamed.lines.map((line) => `${line.line}:${line.sha}`)).toEqual(expected);
  });
});
