import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { PermissionConfig } from "../tool/permissions.js";
import type { RunScope } from "../tool/run-scope.js";
import { workspaceContainers } from "./child-workspaces.js";
import { resolvePermissionConfig } from "./permission-config.js";
import { resumeRefusal, scopeOutside } from "./scope-within.js";

const root = mkdtempSync(path.join(tmpdir(), "scope-within-"));
mkdirSync(path.join(root, "sub"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scope(permissions: PermissionConfig, more: Partial<Pick<RunScope, "allowedTools" | "depth">> = {}): RunScope {
  return {
    runId: "r",
    permissions: resolvePermissionConfig(permissions),
    allowedTools: more.allowedTools,
    depth: more.depth ?? 0,
  };
}
const base: PermissionConfig = { sandbox: "local", approval: "destructive", workspace: root };

describe("a saved scope within a caller's", () => {
  it("is within an equal or wider caller", () => {
    expect(scopeOutside(scope(base), scope(base))).toBeUndefined();
    expect(scopeOutside(scope({ ...base, sandbox: "workspace", approval: "all" }), scope(base))).toBeUndefined();
    expect(scopeOutside(scope({ ...base, workspace: path.join(root, "sub") }), scope(base))).toBeUndefined();
    expect(
      scopeOutside(scope(base, { allowedTools: ["read"], depth: 2 }), scope(base, { allowedTools: ["read", "write"], depth: 1 })),
    ).toBeUndefined();
    expect(resumeRefusal("wf_1", scope(base), undefined)).toBeUndefined();
  });

  it("names each part that is wider than the caller's", () => {
    expect(scopeOutside(scope(base), scope({ ...base, workspace: path.join(root, "sub") }))).toContain("outside yours");
    expect(scopeOutside(scope({ sandbox: "local", approval: "destructive" }), scope(base))).toContain(
      "workspace is unrestricted",
    );
    expect(scopeOutside(scope({ ...base, sandbox: "unrestricted" }), scope(base))).toContain('sandbox "unrestricted"');
    expect(scopeOutside(scope({ ...base, approval: "none" }), scope(base))).toContain('approval "none"');
    expect(scopeOutside(scope(base), scope(base, { allowedTools: ["read"] }))).toBe("it may use every tool; you may not");
    expect(scopeOutside(scope(base, { allowedTools: ["read", "bash"] }), scope(base, { allowedTools: ["read"] }))).toContain(
      "(bash)",
    );
    expect(scopeOutside(scope(base), scope(base, { depth: 1 }))).toContain("shallower");
    expect(resumeRefusal("wf_1", scope({ ...base, approval: "none" }), scope(base))).toMatchObject({
      message: expect.stringContaining("Workflow run wf_1 was started with more permissions"),
      data: { reason: expect.stringContaining("approval") },
    });
  });

  it("is a check only: it remembers no child workspace, where narrowPermissions would", () => {
    const inner = path.join(root, "sub", "only-checked");
    mkdirSync(inner);
    expect(scopeOutside(scope({ ...base, workspace: inner }), scope(base))).toBeUndefined();
    expect(workspaceContainers(inner)).toEqual([]);
  });

  it("checks the workspace on disk: a link inside the caller's workspace to outside it is outside", () => {
    const outside = mkdtempSync(path.join(tmpdir(), "scope-within-outside-"));
    try {
      symlinkSync(outside, path.join(root, "link-out"));
      expect(scopeOutside(scope({ ...base, workspace: path.join(root, "link-out") }), scope(base))).toContain("outside yours");
      // Positive control: a link that stays inside is within.
      symlinkSync(path.join(root, "sub"), path.join(root, "link-in"));
      expect(scopeOutside(scope({ ...base, workspace: path.join(root, "link-in") }), scope(base))).toBeUndefined();
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});
