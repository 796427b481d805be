/**
 * Escape attempts that read the outside without opening it: the answer to a refused path must not
 * say what exists outside the workspace or where a link leads. Before, `read /proc/self/exe`
 * answered "it resolves to /usr/bin/node", `/proc/self/cwd` named the host's working directory,
 * `/proc/self/fd/N` named the host's open files, and an existing outside file was refused with a
 * different message than a missing one. The control: under scope `unrestricted` the same calls do
 * tell existing from missing.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createBashTool, createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

function runIn(sandbox: "workspace" | "unrestricted", workspace: string): Run {
  return createRegistry({ tools: [...createFileTools(), createBashTool()] }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}

const text = (result: ToolCallResult) =>
  result.ok ? `ok:${String(result.output)}` : `${result.error.code}:${result.error.message}:${result.error.hint ?? ""}`;

/** Every tool that takes a path, each with `target` as the path. */
async function probe(run: Run, target: string): Promise<string[]> {
  return [
    text(await run.call("read", { path: target })),
    text(await run.call("write", { path: target, content: "x" })),
    text(await run.call("edit", { path: target, old_text: "a", new_text: "b" })),
    text(await run.call("file_inspect", { path: target })),
    text(await run.call("ls", { path: target })),
    text(await run.call("glob", { pattern: "*", path: target })),
    text(await run.call("grep", { pattern: "x", path: target })),
    text(await run.call("bash", { command: "pwd", cwd: target })),
  ];
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: refusals that describe the outside"), () => {
  let ground: Playground;
  beforeEach(async () => {
    ground = await playground();
    await writeFile(path.join(ground.outside, "secret.txt"), "SECRET\n");
    await mkdir(path.join(ground.outside, "private-dir"));
    await symlink(path.join(ground.outside, "private-dir"), path.join(ground.workspace, "lnk"));
  });
  afterEach(async () => ground.dispose());

  escapeAttempt("paths", "an outside path that exists is refused exactly like one that does not", async () => {
    const run = runIn("workspace", ground.workspace);
    // An outside link (alias -> private-dir) and plain entries, existing and missing.
    await symlink(path.join(ground.outside, "private-dir"), path.join(ground.outside, "alias"));
    const existing = [
      ...(await probe(run, path.join(ground.outside, "secret.txt"))),
      ...(await probe(run, path.join(ground.outside, "alias", "secret.txt"))),
    ];
    const missing = [
      ...(await probe(run, path.join(ground.outside, "missing.txt"))),
      ...(await probe(run, path.join(ground.outside, "missing", "other.txt"))),
    ];
    const blind = (answers: string[], names: string[]) =>
      answers.map((answer) => names.reduce((result, name) => result.replaceAll(name, "NAME"), answer));
    expect(blind(existing, ["secret.txt", "alias"])).toEqual(blind(missing, ["missing.txt", "other.txt", "missing"]));
    for (const answer of existing) expect(answer).toMatch(/^path_outside_workspace:/);
    // Control: unrestricted does tell them apart (read returns the secret, or not_found).
    const control = runIn("unrestricted", ground.workspace);
    expect(text(await control.call("read", { path: path.join(ground.outside, "secret.txt") }))).toContain("SECRET");
    expect(text(await control.call("read", { path: path.join(ground.outside, "missing.txt") }))).not.toContain("SECRET");
  });

  escapeAttempt("paths", "refusals never name where /proc/self links or a planted symlink lead", async () => {
    const run = runIn("workspace", ground.workspace);
    const answers = [
      ...(await probe(run, "/proc/self/exe")),
      ...(await probe(run, "/proc/self/cwd")),
      ...(await probe(run, "/proc/self/fd/0")),
      ...(await probe(run, "/proc/1/cwd")),
      ...(await probe(run, "lnk/file.txt")),
      ...(await probe(run, "lnk")),
    ];
    for (const answer of answers) {
      expect(answer.startsWith("ok:")).toBe(false);
      expect(answer).not.toContain(process.execPath);
      expect(answer).not.toContain(process.cwd());
      expect(answer).not.toContain(ground.outside);
    }
    // Control: the links do lead there (what the refusals used to say).
    const control = runIn("unrestricted", ground.workspace);
    expect(text(await control.call("bash", { command: "pwd -P", cwd: "lnk" }))).toContain(ground.outside);
  });
  escapeAttempt("paths", "symlinks planted by bash probe whether host-only files exist", async () => {
    // The sandbox cannot see the host's /tmp; a link planted inside names it, and a file tool follows it.
    const run = runIn("workspace", ground.workspace);
    const planted = await run.call("bash", {
      command: `ln -s ${path.join(ground.outside, "secret.txt")} probe-yes && ln -s ${path.join(ground.outside, "missing.txt")} probe-no && ln -s ${path.join(ground.outside, "private-dir")} dir-yes && ln -s ${path.join(ground.outside, "nothing-dir")} dir-no && echo planted`,
    });
    expect(text(planted)).toContain("planted");
    const yes = [...(await probe(run, "probe-yes")), ...(await probe(run, "dir-yes/f.txt"))];
    const no = [...(await probe(run, "probe-no")), ...(await probe(run, "dir-no/f.txt"))];
    const blind = (answers: string[], names: string[]) =>
      answers.map((answer) => names.reduce((result, name) => result.replaceAll(name, "NAME"), answer));
    expect(blind(yes, ["probe-yes", "dir-yes"])).toEqual(blind(no, ["probe-no", "dir-no"]));
    for (const answer of yes) expect(answer.startsWith("ok:")).toBe(false);
    // Control: followed naively (unrestricted), the links do tell existing from missing.
    const control = runIn("unrestricted", ground.workspace);
    expect(text(await control.call("read", { path: "probe-yes" }))).toContain("SECRET");
    expect(text(await control.call("read", { path: "probe-no" }))).not.toContain("SECRET");
  });
});
