/**
 * Red team round 30: a split commit-graph (`objects/info/commit-graphs/`, the layout `git fetch`
 * and `git gc` write once a graph grows) whose files lie outside the workspace. Earlier rounds
 * linked the single `objects/info/commit-graph` out; the chain is read by another path (its list
 * file `commit-graph-chain`, then one `graph-<hash>.graph` per line). The outside graph is the
 * workspace repository's own graph (same commit ids, written by git in a copy) with HEAD~1's first
 * parent changed to the root commit: a reader that takes it answers `HEAD~2` with the root, so an
 * answer shows which graph was read. Attempts: the chain directory a link out; the list file and
 * the layer links out; only the layer a link out. Under sandbox "workspace" each must not answer
 * with the lie (it is refused, `repository_outside_workspace`, naming no outside path); controls: "unrestricted" takes the lie through the same links,
 * and the lying graph copied into the workspace is read under "workspace" (the graph is used).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { gitRun } from "../git/support/git-run.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const gitCapability = capability("git");
const author = { name: "Graph", email: "graph@example.com" };

let scratch: string;
/** The honest repository (no graph); each attempt works on a copy. */
let honest: string;
/** The lying chain's directory, outside every workspace. */
let outsideChain: string;
/** The lying layer's file name (`graph-<hash>.graph`). */
let layerName: string;
let counter = 0;

/**
 * Writes a split graph in `directory` and makes HEAD~1's first parent the root commit (HEAD's own
 * parents are read from its object: a revision is peeled by id before the graph is consulted).
 */
function lyingSplitGraph(directory: string): { chain: string; layer: string } {
  git(directory, ["commit-graph", "write", "--reachable", "--split"]);
  const chain = path.join(directory, ".git", "objects", "info", "commit-graphs");
  const layer = readdirSync(chain).find((name) => name.endsWith(".graph")) as string;
  const file = path.join(chain, layer);
  const data = readFileSync(file);
  const chunks = new Map<string, number>();
  for (let index = 0; index < (data[6] ?? 0); index++) {
    const at = 8 + index * 12;
    chunks.set(data.toString("latin1", at, at + 4), Number(data.readBigUInt64BE(at + 4)));
  }
  const count = data.readUInt32BE((chunks.get("OIDF") as number) + 255 * 4);
  const names = chunks.get("OIDL") as number;
  const ids = Array.from({ length: count }, (_, index) => data.toString("hex", names + index * 20, names + index * 20 + 20));
  const head = git(directory, ["rev-parse", "HEAD~1"]).trim();
  const root = git(directory, ["rev-list", "--max-parents=0", "HEAD"]).trim();
  data.writeUInt32BE(ids.indexOf(root), (chunks.get("CDAT") as number) + ids.indexOf(head) * 36 + 20);
  writeFileSync(file, data);
  return { chain, layer };
}

/** A copy of the honest repository as a workspace, with `plant` run on its `objects/info`. */
function workspaceWith(plant: (info: string) => void): string {
  const workspace = path.join(scratch, `workspace-${++counter}`);
  cpSync(honest, workspace, { recursive: true, verbatimSymlinks: true });
  plant(path.join(workspace, ".git", "objects", "info"));
  return workspace;
}

/** What `HEAD~2` is to the git tools: the removed line of the diff from it to HEAD. */
async function parentLine(workspace: string, sandbox: SandboxScope): Promise<string> {
  const result = await gitRun(workspace, {}, sandbox).call("git_diff_range", { from: "HEAD~2" });
  const text = JSON.stringify(result);
  expect(text).not.toContain(scratch);
  if (!result.ok) return `refused:${result.error.code}`;
  return /-line (\d)/.exec(text)?.[0] ?? text.slice(0, 200);
}

const plants: readonly (readonly [string, (info: string) => void])[] = [
  [
    "objects/info/commit-graphs a link to an outside chain directory",
    (info) => symlinkSync(outsideChain, path.join(info, "commit-graphs")),
  ],
  [
    "commit-graph-chain and its graph-<hash>.graph links to outside files",
    (info) => {
      mkdirSync(path.join(info, "commit-graphs"));
      for (const name of ["commit-graph-chain", layerName]) {
        symlinkSync(path.join(outsideChain, name), path.join(info, "commit-graphs", name));
      }
    },
  ],
  [
    "a real commit-graph-chain whose graph-<hash>.graph is a link to an outside file",
    (info) => {
      mkdirSync(path.join(info, "commit-graphs"));
      cpSync(path.join(outsideChain, "commit-graph-chain"), path.join(info, "commit-graphs", "commit-graph-chain"));
      symlinkSync(path.join(outsideChain, layerName), path.join(info, "commit-graphs", layerName));
    },
  ],
];

describe.skipIf(gitCapability.missing)(gitCapability.label("escape attempts: round 30, a split commit-graph outside"), () => {
  beforeAll(() => {
    scratch = temporaryDirectory("escape-r30-graph");
    const repository = new FixtureRepository(path.join(scratch, "honest"));
    mkdirSync(repository.directory);
    git(repository.directory, ["init", "-q"]);
    for (let index = 0; index < 4; index++) repository.write("a.txt", `line ${index}\n`).commit(`change ${index}`, author);
    honest = repository.directory;
    const outside = path.join(scratch, "outside");
    cpSync(honest, outside, { recursive: true });
    const lying = lyingSplitGraph(outside);
    outsideChain = lying.chain;
    layerName = lying.layer;
  });
  afterAll(() => removeDirectory(scratch));

  for (const [title, plant] of plants) {
    escapeAttempt("git-metadata", `a split commit-graph: ${title} (its parents lie)`, async () => {
      const workspace = workspaceWith(plant);
      // The honest HEAD~2 is the second commit ("line 1"); the lie makes it the root ("line 0").
      // Under the sandbox the graph's link out is refused like any other file read outside.
      expect(await parentLine(workspace, "workspace")).toBe("refused:repository_outside_workspace");
      // Control: without the sandbox the same links are followed and the lie is answered.
      expect(await parentLine(workspace, "unrestricted")).toBe("-line 0");
    });
  }

  it("control of the split-graph attempts: the lying chain copied inside is read (workspace)", async () => {
    const workspace = workspaceWith((info) => cpSync(outsideChain, path.join(info, "commit-graphs"), { recursive: true }));
    expect(await parentLine(workspace, "workspace")).toBe("-line 0");
    expect(
      await parentLine(
        workspaceWith(() => undefined),
        "workspace",
      ),
    ).toBe("-line 1");
  });
});
