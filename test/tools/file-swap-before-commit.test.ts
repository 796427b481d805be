import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryApprovalBroker, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLocks } from "../../src/tools/fs/cross-process-lock.js";
import { createFileTools } from "../../src/tools/index.js";

let base: string;
let workspace: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "atc-swap-")));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(workspace, "dir"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(workspace, "dir", "a.txt"), "a\n");
  await writeFile(path.join(workspace, "dir", "b.txt"), "b\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Two files of one directory: the batched reads open `dir` once and keep it for the commit. */
const PATCH = "--- a/dir/a.txt\n+++ b/dir/a.txt\n@@ -1 +1 @@\n-a\n+A\n--- a/dir/b.txt\n+++ b/dir/b.txt\n@@ -1 +1 @@\n-b\n+B\n";

/** Moves the workspace's `dir` out of the workspace; puts back a new `dir` with the same files, or a symlink to the moved one. */
async function swapDirectory(replacement: "same files" | "symlink"): Promise<void> {
  await rename(path.join(workspace, "dir"), path.join(outside, "dir"));
  if (replacement === "symlink") {
    await symlink(path.join(outside, "dir"), path.join(workspace, "dir"));
    return;
  }
  await mkdir(path.join(workspace, "dir"));
  await writeFile(path.join(workspace, "dir", "a.txt"), "a\n");
  await writeFile(path.join(workspace, "dir", "b.txt"), "b\n");
}

async function expectOutsideUntouched(): Promise<void> {
  expect(await readFile(path.join(outside, "dir", "a.txt"), "utf8")).toBe("a\n");
  expect(await readFile(path.join(outside, "dir", "b.txt"), "utf8")).toBe("b\n");
}

function expectOutcome(result: ToolCallResult, replacement: "same files" | "symlink"): Promise<void> | undefined {
  if (replacement === "symlink") {
    expect(result.ok ? "" : result.error.code).toBe("symlink_escape");
    return undefined;
  }
  // The change lands where the path is now: the new directory inside the workspace.
  expect(result.ok).toBe(true);
  return (async () => {
    expect(await readFile(path.join(workspace, "dir", "a.txt"), "utf8")).toBe("A\n");
    expect(await readFile(path.join(workspace, "dir", "b.txt"), "utf8")).toBe("B\n");
  })();
}

describe("a directory swapped before the commit", () => {
  it.each(["same files", "symlink"] as const)(
    "between approval and commit (moved out, replaced by %s): nothing is written outside",
    async (replacement) => {
      const approvals = new InMemoryApprovalBroker();
      let asked = 0;
      approvals.events.on("approval.requested", (request) => {
        asked++;
        void swapDirectory(replacement).then(() => approvals.approve(request.id));
      });
      const run = createRegistry({ approvals, tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace, approval: "destructive" },
      });
      const result = await run.call("apply_patch", { patch: PATCH });
      expect(asked).toBe(1);
      await expectOutcome(result, replacement);
      await expectOutsideUntouched();
    },
  );

  it.each(["same files", "symlink"] as const)(
    "between the plan's reads and the commit (moved out, replaced by %s): the kept directory is not reused",
    async (replacement) => {
      const run = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
      const keys = [path.join(workspace, "dir", "a.txt"), path.join(workspace, "dir", "b.txt")];
      let result: Promise<ToolCallResult> | undefined;
      // The test holds the files' locks: the call reads and plans (keeping `dir` open), then
      // waits for the locks at its commit; the directory is swapped while it waits.
      await withFileLocks(keys, async () => {
        result = run.call("apply_patch", { patch: PATCH });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await swapDirectory(replacement);
      });
      await expectOutcome(await (result as Promise<ToolCallResult>), replacement);
      await expectOutsideUntouched();
    },
  );

  it("positive control: without a swap the change is made (the kept directory reused)", async () => {
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const result = await run.call("apply_patch", { patch: PATCH });
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(workspace, "dir", "a.txt"), "utf8")).toBe("A\n");
  });

  it("leaves no directory open: after a change, and after a conflict, kept directories are closed", async () => {
    const open = async () => (await readdir("/proc/self/fd")).length;
    const before = await open();
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    expect((await run.call("apply_patch", { patch: PATCH })).ok).toBe(true);
    expect(await open()).toBe(before);
    // The same patch again no longer applies (the files were changed): nothing kept open either.
    expect((await run.call("apply_patch", { patch: PATCH })).ok).toBe(false);
    expect(await open()).toBe(before);
  });
});
