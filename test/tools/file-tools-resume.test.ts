import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryRunStore, openRun, type RunState } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-resume-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A registry as another process would build it: same tools, nothing shared in memory. */
const freshRegistry = () => createRegistry({ tools: createFileTools({ root: workspace, redo: true }) });
const permissions = () => ({ sandbox: "workspace" as const, workspace });

describe("file tools in a run resumed elsewhere", () => {
  it("undo and redo work after the run moved to another process (the journal is saved with the run)", async () => {
    const store = new InMemoryRunStore<RunState>();
    const file = path.join(workspace, "notes.md");
    await writeFile(file, "one\n");
    const first = await openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: permissions() });
    expect(await first.call("write", { path: "notes.md", content: "two\n" })).toMatchObject({ ok: true });
    expect(await first.call("write", { path: "notes.md", content: "three\n" })).toMatchObject({ ok: true });

    const second = await openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: permissions() });
    expect(await second.call("undo", {})).toMatchObject({ ok: true });
    expect(await readFile(file, "utf8")).toBe("two\n");
    // Positive control: a run that did not make the changes has nothing to undo.
    const stranger = freshRegistry().createRun({ profile: "full", permissions: permissions() });
    expect(await stranger.call("undo", {})).toMatchObject({ ok: false, error: { code: "nothing_to_undo" } });

    // And a third process redoes what the second undid.
    const third = await openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: permissions() });
    expect(await third.call("undo", { action: "redo" })).toMatchObject({ ok: true });
    expect(await readFile(file, "utf8")).toBe("three\n");
  });

  it("remembers what the model has read, so a resumed run does not send the same content again", async () => {
    await writeFile(path.join(workspace, "a.txt"), "alpha\n");
    const store = new InMemoryRunStore<RunState>();
    const first = await openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: permissions() });
    const full = await first.call("read", { path: "a.txt" });
    expect(JSON.stringify(full)).toContain("alpha");
    const second = await openRun(freshRegistry(), { store, runId: "r", profile: "full", permissions: permissions() });
    const again = await second.call("read", { path: "a.txt" });
    expect(again.ok).toBe(true);
    expect(JSON.stringify(again)).not.toContain("alpha");
    // Positive control: a fresh run gets the content.
    const fresh = freshRegistry().createRun({ profile: "full", permissions: permissions() });
    expect(JSON.stringify(await fresh.call("read", { path: "a.txt" }))).toContain("alpha");
  });
});
