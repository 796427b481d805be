import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Run } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackWithFileTools, codeOf, fileToolsRun } from "./support/file-tool-attack.js";

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
const runIn = (sandbox: "workspace" | "unrestricted"): Run => fileToolsRun(workspace, sandbox);

describe("file tools: paths that name a file outside the workspace", () => {
  for (const [title, target] of [
    ["an absolute path outside", () => path.join(outside, "secret.txt")],
    ["a .. path", () => "../outside/secret.txt"],
    ["a symlinked directory leading out", () => "out-link/secret.txt"],
    ["an absolute path through the workspace and ..", () => path.join(workspace, "..", "outside", "secret.txt")],
  ] as const) {
    escapeAttempt("paths", `edit/replace/apply_patch/write through ${title} are refused under workspace`, async () => {
      const codes = await attackWithFileTools(runIn("workspace"), target());
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
