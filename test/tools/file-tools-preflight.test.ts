import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-preflight-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A run that asks approval for every change, and counts the requests. */
function approvingRun() {
  const approvals = new InMemoryApprovalBroker();
  const asked: string[] = [];
  approvals.events.on("approval.requested", (request) => {
    asked.push(request.toolName);
    void approvals.approve(request.id);
  });
  const registry = createRegistry({ approvals, tools: createFileTools({ root: workspace }) });
  const run = registry.createRun({ profile: "full", permissions: { sandbox: "workspace", workspace, approval: "destructive" } });
  return { run, asked };
}

describe("approval is asked only for changes the workspace allows", () => {
  it.each([
    ["write", { path: "../outside.txt", content: "x" }],
    ["write", { path: path.join(tmpdir(), "atc-abs-outside.txt"), content: "x" }],
    ["write", { path: ".git/config", content: "[core]\n" }],
    ["edit", { path: "../outside.txt", old_text: "a", new_text: "b" }],
    ["replace", { path: ".git/hooks/pre-commit", find: "a", replace: "b" }],
    ["apply_patch", { patch: "*** Begin Patch\n*** Delete File: ../victim.txt\n*** End Patch" }],
    ["apply_patch", { patch: "*** Begin Patch\n*** Add File: .git/commondir\n+/tmp/x\n*** End Patch" }],
  ] as const)("%s %j is refused before anyone is asked", async (tool, args) => {
    const { run, asked } = approvingRun();
    const result = await run.call(tool, args);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.error.code).toMatch(/outside|escape|git_metadata_refused|invalid_path/);
    expect(asked).toEqual([]);
  });

  it("git state of a bare repository or a separate git directory is refused before anyone is asked", async () => {
    execFileSync("git", ["init", "-q", "--bare", path.join(workspace, "mirror.git")]);
    execFileSync("git", ["init", "-q", "--separate-git-dir", path.join(workspace, ".realgit"), workspace]);
    const { run, asked } = approvingRun();
    for (const target of ["mirror.git/config", "mirror.git/hooks/pre-receive", ".realgit/config", ".realgit/info/exclude"]) {
      const result = await run.call("write", { path: target, content: "[core]\n" });
      expect(result.ok ? "ok" : result.error.code).toBe("git_metadata_refused");
    }
    expect(asked).toEqual([]);
    // Control: an ordinary file beside them is asked for.
    expect((await run.call("write", { path: "mirror.git/description", content: "x\n" })).ok).toBe(true);
    expect(asked).toEqual(["write"]);
  });

  it("positive control: a change inside the workspace is asked for, approved and made", async () => {
    const { run, asked } = approvingRun();
    expect(await run.call("write", { path: "inside.txt", content: "x" })).toMatchObject({ ok: true });
    expect(await run.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: b.txt\n+y\n*** End Patch" })).toMatchObject({
      ok: true,
    });
    expect(asked).toEqual(["write", "apply_patch"]);
  });
});
