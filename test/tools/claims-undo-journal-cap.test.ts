/**
 * README, "Durable runs": the file tools' undo journal is saved with the run "at most 16 MiB: older
 * undo steps beyond it are dropped, never wrong ones". Real file tools on real files, a run saved
 * in a store and continued by a fresh registry (as another process would): the steps that fit in
 * 16 MiB of file contents (before + after) undo after the resume, the older ones answer
 * `nothing_to_undo`, and a step too big to keep ends the saved journal, so no older step that
 * would fit is kept behind the gap (an undo would then skip a change and revert the wrong one).
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryRunStore, openRun, type RunState, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

const MiB = 1024 * 1024;
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-journal-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const freshRegistry = () => createRegistry({ tools: createFileTools({ root: workspace }) });
const open = (store: InMemoryRunStore<RunState>) =>
  openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: { sandbox: "workspace", workspace } });

/** A file of exactly `bytes` bytes starting with `MARK`, whose edit (MARK to DONE) keeps its size. */
async function bigFile(name: string, bytes: number): Promise<string> {
  const line = `${"x".repeat(1023)}\n`;
  const body = `MARK\n${line.repeat(Math.ceil(bytes / line.length))}`.slice(0, bytes);
  await writeFile(path.join(workspace, name), body);
  return body;
}

/** Three edits, oldest first: a small file, then two big ones; every file edited. */
async function threeEdits(store: InMemoryRunStore<RunState>, bigBytes: number) {
  await writeFile(path.join(workspace, "small.txt"), "MARK small\n");
  const one = await bigFile("one.txt", bigBytes);
  const two = await bigFile("two.txt", bigBytes);
  const run = await open(store);
  for (const name of ["small.txt", "one.txt", "two.txt"]) {
    expect(code(await run.call("edit", { path: name, old_text: "MARK", new_text: "DONE" }))).toBe("ok");
  }
  return { one, two };
}

const startOf = async (name: string) => (await readFile(path.join(workspace, name), "utf8")).slice(0, 4);

describe("the undo journal saved with the run", () => {
  it("keeps steps up to exactly 16 MiB of contents and drops the older step beyond it", { timeout: 120_000 }, async () => {
    const store = new InMemoryRunStore<RunState>();
    // Each big edit journals 4 MiB before + 4 MiB after: the two fill the 16 MiB exactly.
    const { one, two } = await threeEdits(store, 4 * MiB);
    const resumed = await open(store);
    expect(code(await resumed.call("undo", {}))).toBe("ok");
    expect(await readFile(path.join(workspace, "two.txt"), "utf8")).toBe(two);
    expect(code(await resumed.call("undo", {}))).toBe("ok");
    expect(await readFile(path.join(workspace, "one.txt"), "utf8")).toBe(one);
    // The small step is older and beyond the 16 MiB: dropped from the saved journal.
    expect(code(await resumed.call("undo", {}))).toBe("nothing_to_undo");
    expect(await startOf("small.txt")).toBe("DONE");
  });

  it("control: the run that made the steps (journal in memory) undoes all three", { timeout: 120_000 }, async () => {
    const store = new InMemoryRunStore<RunState>();
    await writeFile(path.join(workspace, "small.txt"), "MARK small\n");
    await bigFile("one.txt", 4 * MiB);
    await bigFile("two.txt", 4 * MiB);
    const run = await open(store);
    for (const name of ["small.txt", "one.txt", "two.txt"]) {
      expect(code(await run.call("edit", { path: name, old_text: "MARK", new_text: "DONE" }))).toBe("ok");
    }
    for (let step = 0; step < 3; step++) expect(code(await run.call("undo", {}))).toBe("ok");
    expect(await startOf("small.txt")).toBe("MARK");
  });

  it("never keeps an older step behind one too big to keep: the resumed run undoes no wrong step", {
    timeout: 120_000,
  }, async () => {
    const store = new InMemoryRunStore<RunState>();
    // Each big edit journals 10 MiB: the newest fits, the middle one does not, the small oldest would.
    await threeEdits(store, 5 * MiB);
    const resumed = await open(store);
    expect(code(await resumed.call("undo", {}))).toBe("ok");
    expect(await startOf("two.txt")).toBe("MARK");
    // The next step back is one.txt's, which was not kept: nothing to undo, and small.txt (older,
    // small enough to fit) is left as it is rather than reverted out of order.
    expect(code(await resumed.call("undo", {}))).toBe("nothing_to_undo");
    expect(await startOf("one.txt")).toBe("DONE");
    expect(await startOf("small.txt")).toBe("DONE");
  });
});
