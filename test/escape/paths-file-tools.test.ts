import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";

let base: string;
let workspace: string;
let outside: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-paths-esc-"));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret\n");
  await symlink(outside, path.join(workspace, "out-link"));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});
function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}
const codeOf = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

/** Every mutating file tool aimed at `target`, which names outside/secret.txt one way or another. */
async function attack(run: Run, target: string): Promise<string[]> {
  return [
    codeOf(await run.call("edit", { path: target, old_text: "secret", new_text: "owned" })),
    codeOf(await run.call("replace", { path: target, find: "secret", replace: "owned" })),
    codeOf(await run.call("apply_patch", { path: target, edits: [{ old_text: "secret", new_text: "owned" }] })),
    codeOf(
      await run.call("apply_patch", { patch: `*** Begin Patch\n*** Update File: ${target}\n@@\n-secret\n+owned\n*** End Patch` }),
    ),
    codeOf(await run.call("apply_patch", { patch: `*** Begin Patch\n*** Delete File: ${target}\n*** End Patch` })),
    codeOf(await run.call("write", { path: target, content: "owned\n" })),
  ];
}

describe("file tools: paths that name a file outside the workspace", () => {
  for (const [title, target] of [
    ["an absolute path outside", () => path.join(outside, "secret.txt")],
    ["a .. path", () => "../outside/secret.txt"],
    ["a symlinked directory leading out", () => "out-link/secret.txt"],
    ["an absolute path through the workspace and ..", () => path.join(workspace, "..", "outside", "secret.txt")],
  ] as const) {
    escapeAttempt("paths", `edit/replace/apply_patch/write through ${title} are refused under workspace`, async () => {
      const codes = await attack(runIn("workspace"), target());
      expect(codes.filter((code) => code === "ok")).toEqual([]);
      expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
      expect(await readdir(outside)).toEqual(["secret.txt"]);
    });
  }

  it("positive control: under unrestricted the same paths reach the file", async () => {
    const run = runIn("unrestricted");
    expect(codeOf(await run.call("edit", { path: "../outside/secret.txt", old_text: "secret", new_text: "one" }))).toBe("ok");
    expect(codeOf(await run.call("replace", { path: "out-link/secret.txt", find: "one", replace: "two" }))).toBe("ok");
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("two\n");
  });
});
