import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools, fileVersion } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";

let base: string;
let workspace: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-paths-"));
  workspace = path.join(base, "ws");
  await mkdir(workspace);
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});
function runIn(sandbox: "workspace" | "unrestricted"): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

describe("edit, replace and apply_patch accept the paths read accepts", () => {
  it("workspace: an absolute path inside the workspace, as read echoes it", async () => {
    const target = path.join(workspace, "a.txt");
    await writeFile(target, "one\ntwo\n");
    const run = runIn("workspace");
    okText(await run.call("read", { path: target }));
    okText(await run.call("edit", { path: target, old_text: "one", new_text: "uno" }));
    okText(await run.call("replace", { path: target, find: "two", replace: "dos" }));
    okText(await run.call("apply_patch", { path: target, edits: [{ old_text: "uno", new_text: "1" }] }));
    okText(await run.call("apply_patch", { patch: `*** Begin Patch\n*** Update File: ${target}\n@@\n-dos\n+2\n*** End Patch` }));
    expect(await readFile(target, "utf8")).toBe("1\n2\n");
    const outside = await run.call("edit", { path: path.join(base, "x.txt"), old_text: "a", new_text: "b" });
    expect(outside.ok ? "" : outside.error.code).toBe("path_outside_workspace");
  });

  it("unrestricted: absolute paths and .. anywhere", async () => {
    const outsideFile = path.join(base, "outside.txt");
    await writeFile(outsideFile, "left\nright\n");
    const run = runIn("unrestricted");
    okText(await run.call("edit", { path: "../outside.txt", old_text: "left", new_text: "L" }));
    okText(await run.call("replace", { path: outsideFile, find: "right", replace: "R" }));
    okText(await run.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: ../new.txt\n+new\n*** End Patch" }));
    expect(await readFile(outsideFile, "utf8")).toBe("L\nR\n");
    expect(await readFile(path.join(base, "new.txt"), "utf8")).toBe("new\n");
  });
});

describe("a stale expected_version in edit, replace and apply_patch", () => {
  it("8 concurrent edits with the same version: exactly one lands, no line is silently lost", async () => {
    const target = path.join(workspace, "list.txt");
    await writeFile(target, "head\n");
    const version = fileVersion("head\n");
    const run = runIn("workspace");
    const calls = Array.from({ length: 8 }, (_, i) => {
      const kind = i % 3;
      if (kind === 0)
        return run.call("edit", { path: "list.txt", old_text: "head", new_text: `head\nline ${i}`, expected_version: version });
      if (kind === 1)
        return run.call("replace", { path: "list.txt", find: "head", replace: `head\nline ${i}`, expected_version: version });
      return run.call("apply_patch", {
        path: "list.txt",
        edits: [{ old_text: "head", new_text: `head\nline ${i}` }],
        expected_version: version,
      });
    });
    const results = await Promise.all(calls);
    const winners = results.filter((result) => result.ok);
    expect(winners).toHaveLength(1);
    expect(results.filter((result) => !result.ok).every((result) => !result.ok && result.error.code === "version_conflict")).toBe(
      true,
    );
    expect((await readFile(target, "utf8")).split("\n").filter((line) => line.startsWith("line "))).toHaveLength(1);
  });

  it("without a version, concurrent edits of different lines all land", async () => {
    const target = path.join(workspace, "many.txt");
    await writeFile(target, `${Array.from({ length: 8 }, (_, i) => `slot ${i}`).join("\n")}\n`);
    const run = runIn("workspace");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => run.call("edit", { path: "many.txt", old_text: `slot ${i}`, new_text: `done ${i}` })),
    );
    expect(results.filter((result) => !result.ok)).toEqual([]);
    expect(await readFile(target, "utf8")).toBe(`${Array.from({ length: 8 }, (_, i) => `done ${i}`).join("\n")}\n`);
  });
});
