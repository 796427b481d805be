/**
 * Red team round 24: the file tools against other names of a host file than round 15's (`..`,
 * absolute paths, a linked directory): the host file named through `/proc/self/root`, a final
 * component that is a link (also through a chain of links inside the workspace), and a hard link
 * a hostile archive or repository checkout left in the workspace. Nothing outside may change.
 */
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Run } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackWithFileTools, codeOf, fileToolsRun } from "./support/file-tool-attack.js";

let base: string;
let workspace: string;
let outside: string;
let secret: string;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-aliases-esc-"));
  workspace = path.join(base, "ws");
  outside = path.join(base, "outside");
  secret = path.join(outside, "secret.txt");
  await mkdir(workspace);
  await mkdir(outside);
  await writeFile(secret, "secret\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});
const runIn = (sandbox: "workspace" | "unrestricted"): Run => fileToolsRun(workspace, sandbox);
/** The mutating file tools that take a path (not apply_patch's patch text) aimed at `target`. */
const attack = (run: Run, target: string) => attackWithFileTools(run, target, { patchText: false });

async function outsideUnchanged() {
  expect(await readFile(secret, "utf8")).toBe("secret\n");
  expect(await readdir(outside)).toEqual(["secret.txt"]);
}

describe("file tools: other names of a host file", () => {
  escapeAttempt("paths", "the host file named through /proc/self/root is refused", async () => {
    const codes = await attack(runIn("workspace"), `/proc/self/root${secret}`);
    expect(codes.filter((code) => code === "ok")).toEqual([]);
    await outsideUnchanged();
  });

  escapeAttempt("paths", "a final component linking out, directly and through a chain of links inside, is refused", async () => {
    await symlink(secret, path.join(workspace, "notes.txt"));
    await symlink("notes.txt", path.join(workspace, "chain-1.txt"));
    await symlink("chain-1.txt", path.join(workspace, "chain-2.txt"));
    const run = runIn("workspace");
    const codes = [...(await attack(run, "notes.txt")), ...(await attack(run, "chain-2.txt"))];
    expect(codes.filter((code) => code === "ok")).toEqual([]);
    expect(codeOf(await run.call("read", { path: "chain-2.txt" }))).not.toBe("ok");
    await outsideUnchanged();
  });

  escapeAttempt("paths", "a hard link to a host file left in the workspace is never written through", async () => {
    await link(secret, path.join(workspace, "linked.txt"));
    const codes = await attack(runIn("workspace"), "linked.txt");
    await outsideUnchanged();
    expect(codes).toEqual(["hard_link_refused", "hard_link_refused", "hard_link_refused", "hard_link_refused"]);
    expect((await stat(secret)).size).toBe("secret\n".length);
  });

  it("positive control: unrestricted, /proc/self/root and the final link reach the file; in the workspace a plain file is edited", async () => {
    await writeFile(path.join(workspace, "plain.txt"), "secret\n");
    expect(await attack(runIn("workspace"), "plain.txt")).toContain("ok");
    expect(await readFile(path.join(workspace, "plain.txt"), "utf8")).toContain("owned");
    const run = runIn("unrestricted");
    expect(codeOf(await run.call("edit", { path: `/proc/self/root${secret}`, old_text: "secret", new_text: "one" }))).toBe("ok");
    await symlink(secret, path.join(workspace, "notes.txt"));
    expect(codeOf(await run.call("edit", { path: "notes.txt", old_text: "one", new_text: "two" }))).toBe("ok");
    expect(await readFile(secret, "utf8")).toBe("two\n");
  });
});
