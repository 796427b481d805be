/**
 * A hostile commit-graph: parents that point at the commit itself, form a cycle, or lie out of
 * range, an octopus edge list that runs off its chunk, a fan-out table that goes down. The graph
 * is written by the real git CLI, then its bytes are changed. Every git tool must answer (the
 * graph is a cache of what the commits say; the walk may read either) or refuse with
 * `corrupt_object`, in bounded time: never loop, never throw a RangeError (`tool_failed`).
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterAll, describe, expect, it } from "vitest";
import type { LogSearchOutput } from "../../src/git/index.js";
import { threadTimes } from "../support/thread-time.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { logIds } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";

const author = { name: "Graph", email: "graph@example.com" };
const cleanup: string[] = [];
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

const CALLS: readonly (readonly [string, Record<string, unknown>])[] = [
  ["git_log_search", { query: "change" }],
  ["git_file_history", { path: "a.txt" }],
  ["git_blame_context", { path: "a.txt", line: 1 }],
  ["git_diff_range", { from: "HEAD~3" }],
  ["git_contributor_context", { path: "a.txt" }],
];

interface Graph {
  readonly directory: string;
  readonly file: string;
  readonly data: Buffer;
  /** Chunk starts by id. */
  readonly chunks: Map<string, number>;
  /** Commit ids in graph order. */
  readonly ids: string[];
}

function graphRepository(): Graph {
  const fixture = FixtureRepository.create("hostile-graph");
  cleanup.push(fixture.directory);
  for (let index = 0; index < 8; index++) fixture.write("a.txt", `line ${index}\n`).commit(`change ${index}`, author);
  git(fixture.directory, ["commit-graph", "write", "--reachable", "--changed-paths"]);
  const file = path.join(fixture.directory, ".git", "objects", "info", "commit-graph");
  const data = readFileSync(file);
  const chunks = new Map<string, number>();
  for (let index = 0; index < (data[6] ?? 0); index++) {
    const at = 8 + index * 12;
    chunks.set(data.toString("latin1", at, at + 4), Number(data.readBigUInt64BE(at + 4)));
  }
  const count = data.readUInt32BE((chunks.get("OIDF") as number) + 255 * 4);
  const names = chunks.get("OIDL") as number;
  const ids = Array.from({ length: count }, (_, index) => data.toString("hex", names + index * 20, names + index * 20 + 20));
  return { directory: fixture.directory, file, data, chunks, ids };
}

/** Writes `value` as the first (or second) parent field of commit `oid` in the graph. */
function setParent(graph: Graph, oid: string, value: number, second = false): void {
  const at = (graph.chunks.get("CDAT") as number) + graph.ids.indexOf(oid) * 36 + 20 + (second ? 4 : 0);
  graph.data.writeUInt32BE(value >>> 0, at);
  writeFileSync(graph.file, graph.data);
}

/**
 * Every tool answers or refuses with corrupt_object, each within a few seconds of this thread's own
 * time (test/support/thread-time.ts): a walk that loops runs on this thread, while the wall time of
 * a loaded machine (2 cores at load 15-30) is mostly time the process waited for a CPU.
 */
async function expectBounded(directory: string): Promise<ToolCallResult[]> {
  const results: ToolCallResult[] = [];
  for (const [name, input] of CALLS) {
    const started = threadTimes().ranMs;
    const result = await gitRun(directory).call(name, input);
    expect(threadTimes().ranMs - started, name).toBeLessThan(10_000);
    if (!result.ok) expect(result.error.code, `${name}: ${JSON.stringify(result.error).slice(0, 300)}`).toBe("corrupt_object");
    results.push(result);
  }
  return results;
}

const head = (directory: string) => git(directory, ["rev-parse", "HEAD"]).trim();
const parentOf = (directory: string, revision: string) => git(directory, ["rev-parse", revision]).trim();

describe("a hostile commit-graph", () => {
  it("a commit that is its own parent, and two commits that are each other's parent", async () => {
    const self = graphRepository();
    setParent(self, head(self.directory), self.ids.indexOf(head(self.directory)));
    await expectBounded(self.directory);
    const cycle = graphRepository();
    const [top, below] = [head(cycle.directory), parentOf(cycle.directory, "HEAD~1")];
    setParent(cycle, below, cycle.ids.indexOf(top));
    await expectBounded(cycle.directory);
  });

  it("a parent position past the end of the graph, and an octopus edge list off its chunk", async () => {
    const past = graphRepository();
    setParent(past, head(past.directory), 0x0fff_fff0);
    await expectBounded(past.directory);
    const edges = graphRepository();
    setParent(edges, head(edges.directory), 0x8000_0000 + 0x0fff_fff0, true);
    await expectBounded(edges.directory);
  });

  it("a fan-out table that goes down", async () => {
    const graph = graphRepository();
    const fanout = graph.chunks.get("OIDF") as number;
    for (let byte = 0; byte < 128; byte++) graph.data.writeUInt32BE(0x0fff_ffff, fanout + byte * 4);
    writeFileSync(graph.file, graph.data);
    await expectBounded(graph.directory);
  });

  it("Bloom filters that say no path changed: the answer is git's, which reads the same filters", async () => {
    const graph = graphRepository();
    const bloom = graph.chunks.get("BDAT") as number;
    const end = [...graph.chunks.values()].filter((start) => start > bloom).sort((a, b) => a - b)[0] ?? graph.data.length - 20;
    graph.data.fill(0, bloom + 12, end);
    writeFileSync(graph.file, graph.data);
    await expectBounded(graph.directory);
  });

  it("control: the honest graph gives git's answer", async () => {
    const graph = graphRepository();
    const [search] = await expectBounded(graph.directory);
    expect(output<LogSearchOutput>(search as ToolCallResult).commits.map((commit) => commit.sha.slice(0, 7))).toEqual(
      logIds(graph.directory, ["-i", "-F", "--grep", "change", "-n", "20"]).map((id) => id.slice(0, 7)),
    );
  });
});
