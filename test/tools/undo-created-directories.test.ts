/**
 * Undoing a change that made directories for its files removes those directories again (deepest
 * first, each only when empty): the workspace is left as before the change. Directories that
 * existed before, and directories someone put a file in since, are kept.
 */
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryRunStore, openRun, type RunState } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-undo-dirs-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const registry = () => createRegistry({ tools: createFileTools({ redo: true }) });
const permissions = () => ({ sandbox: "workspace" as const, workspace });
const run = () => registry().createRun({ profile: "full", permissions: permissions() });
const exists = (relative: string) =>
  stat(path.join(workspace, relative)).then(
    () => true,
    () => false,
  );

const patch = [
  "*** Begin Patch",
  "*** Add File: fresh/deep/er/a.ts",
  "+export const a = 1;",
  "*** Add File: existing/sub/b.ts",
  "+export const b = 2;",
  "*** End Patch",
].join("\n");

describe("undo of a change that made directories", () => {
  it("removes the directories the change made, and keeps the ones that existed", async () => {
    await mkdir(path.join(workspace, "existing"));
    await writeFile(path.join(workspace, "existing/keep.txt"), "kept\n");
    const r = run();
    okText(await r.call("apply_patch", { patch }));
    expect(await exists("fresh/deep/er/a.ts")).toBe(true);
    expect(await exists("existing/sub/b.ts")).toBe(true);

    okText(await r.call("undo", {}));
    expect(await exists("fresh")).toBe(false);
    expect(await exists("existing/sub")).toBe(false);
    // Positive control: what existed before the change is still there.
    expect(await exists("existing/keep.txt")).toBe(true);
    expect((await readdir(workspace)).sort()).toEqual(["existing"]);

    // Redo makes them again, and a second undo removes them again.
    okText(await r.call("undo", { action: "redo" }));
    expect(await exists("fresh/deep/er/a.ts")).toBe(true);
    okText(await r.call("undo", {}));
    expect((await readdir(workspace)).sort()).toEqual(["existing"]);
  });

  it("keeps a made directory that someone put a file in since, and its parents", async () => {
    const r = run();
    okText(await r.call("write", { path: "made/inner/leaf/x.txt", content: "x\n" }));
    await writeFile(path.join(workspace, "made/inner/outsider.txt"), "not the model's\n");
    okText(await r.call("undo", {}));
    expect(await exists("made/inner/leaf")).toBe(false);
    expect(await exists("made/inner/outsider.txt")).toBe(true);
    expect(await exists("made")).toBe(true);
  });

  it("still knows the made directories after the run moved to another process", async () => {
    const store = new InMemoryRunStore<RunState>();
    const first = await openRun(registry(), { store, runId: "r", profile: "full", permissions: permissions() });
    okText(await first.call("write", { path: "nested/dir/file.txt", content: "one\n" }));
    const second = await openRun(registry(), { store, runId: "r", profile: "full", permissions: permissions() });
    okText(await second.call("undo", {}));
    expect(await readdir(workspace)).toEqual([]);
  });
});
