import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-nul-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("a path with a NUL byte", () => {
  it.each(["workspace", "unrestricted"] as SandboxScope[])("is invalid_path, naming no internal path (%s)", async (sandbox) => {
    const run = createRegistry({ tools: createFileTools({ root: workspace }) }).createRun({
      profile: "full",
      permissions: { sandbox, workspace },
    });
    for (const [tool, args] of [
      ["write", { path: "in.txt\u0000x", content: "x" }],
      ["read", { path: "in.txt\u0000x" }],
      ["edit", { path: "in.txt\u0000x", old_text: "a", new_text: "b" }],
    ] as const) {
      const result = await run.call(tool, args);
      expect(result.ok, tool).toBe(false);
      if (result.ok) continue;
      expect(result.error.code, tool).toBe("invalid_path");
      expect(result.error.message).not.toMatch(/\/proc\/|ERR_INVALID_ARG/);
    }
    // Control: the same name without the NUL byte is written.
    expect((await run.call("write", { path: "in.txt", content: "x" })).ok).toBe(true);
  });
});
