import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { profileToolGroup, skillManageToolGroup } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hostRun, record, temporaryDirectory, text } from "../host/support/host-test-kit.js";

// Red team: calls in one step run in parallel (the AI SDK starts them together). Two updates of
// the same skill or profile, each changing a different field, both answered ok, but each read
// the entry before the other wrote it, so the second write put the first's field back: a lost
// update the model was told had succeeded.

let root: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  root = await temporaryDirectory("redteam-parallel-updates-");
});
afterEach(() => root.remove());

describe("parallel updates of one host entry in one step", () => {
  it("skill_manage: two updates of different fields both land", async () => {
    const { run } = hostRun([skillManageToolGroup({ skillsDir: root.path })]);
    await run.call("skill_manage", { action: "create", name: "notes", description: "old description", body: "old body" });
    const results = await Promise.all([
      run.call("skill_manage", { action: "update", name: "notes", description: "new description" }),
      run.call("skill_manage", { action: "update", name: "notes", body: "new body" }),
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    const stored = await readFile(path.join(root.path, "notes", "SKILL.md"), "utf8");
    expect(stored).toContain("new description");
    expect(stored).toContain("new body");
  });

  it("update_profile: two updates of different fields both land", async () => {
    const { run } = hostRun([profileToolGroup({ profilesDir: root.path })]);
    expect((await run.call("create_profile", { name: "reviewer", description: "old description" })).ok).toBe(true);
    const results = await Promise.all([
      run.call("update_profile", { name: "reviewer", description: "new description" }),
      run.call("update_profile", { name: "reviewer", max_steps: 7 }),
    ]);
    expect(results.map((result) => result.ok)).toEqual([true, true]);
    const stored = await readFile(path.join(root.path, "reviewer.toml"), "utf8");
    expect(stored).toContain("new description");
    expect(stored).toMatch(/max_steps = 7/);
  });

  it("delete_profile then update_profile in one step: the profile stays deleted (no resurrection)", async () => {
    const { run } = hostRun([profileToolGroup({ profilesDir: root.path })]);
    expect((await run.call("create_profile", { name: "gone", description: "d" })).ok).toBe(true);
    const [deleted, updated] = await Promise.all([
      run.call("delete_profile", { name: "gone" }),
      run.call("update_profile", { name: "gone", max_steps: 3 }),
    ]);
    expect(deleted.ok).toBe(true);
    expect(updated.ok).toBe(false);
    expect(await readdir(root.path)).toEqual([]);
  });

  it("control: a lone update changes only its field", async () => {
    const { run } = hostRun([skillManageToolGroup({ skillsDir: root.path })]);
    await run.call("skill_manage", { action: "create", name: "solo", description: "d", body: "b" });
    expect(record(await run.call("skill_manage", { action: "update", name: "solo", body: "b2" })).updated).toBe("skill://solo");
    expect(text(await run.call("skill_manage", { action: "read", name: "solo" }))).toContain("b2");
  });
});
