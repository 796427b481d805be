/**
 * Red team round 10: a writer that takes no lock (a shell's `>>`, an editor) beside the file tools.
 * The README promised that such a writer's change can be overwritten only in a window of "one
 * rename". The window really ran from the check under the locks to the rename: writing and
 * flushing the temporary file (and, for several files, the intent log) lay inside it, so a shell
 * appending while `edit` rewrote a file lost a quarter to a third of its lines. The transaction
 * now looks at each target again after its temporary files are flushed, and a file whose `lstat`
 * moved is checked again (planned again without `expected_version`, else `version_conflict`).
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-unlocked-writer-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** A real shell that appends `appended <i>` lines, one every few milliseconds, then exits. */
function appender(file: string, lines: number): Promise<number | null> {
  const script = `i=0; while [ $i -lt ${lines} ]; do echo "appended $i" >> "$1"; i=$((i+1)); sleep 0.02; done`;
  const child = spawn("sh", ["-c", script, "sh", file], { stdio: "ignore" });
  return new Promise((resolve) => child.on("exit", resolve));
}

describe("a writer that takes no lock", () => {
  it("loses (almost) no append while edit rewrites the file beside it (each edit lands or is a version_conflict)", async () => {
    const file = path.join(workspace, "big.txt");
    await writeFile(file, `head 0\n${"filler line of some length\n".repeat(100)}`);
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const lines = 100;
    let done = false;
    const appending = appender(file, lines).then((code) => {
      done = true;
      return code;
    });
    let head = 0;
    const failures: string[] = [];
    while (!done) {
      const result = await run.call("edit", { path: "big.txt", old_text: `head ${head}\n`, new_text: `head ${head + 1}\n` });
      if (result.ok) head++;
      else if (result.error.code !== "version_conflict") failures.push(`${result.error.code}: ${result.error.message}`);
    }
    expect(await appending).toBe(0);
    expect(failures).toEqual([]);
    const text = await readFile(file, "utf8");
    const lost = Array.from({ length: lines }, (_, index) => index).filter((index) => !text.includes(`\nappended ${index}\n`));
    // Control: the edits really ran beside the appends, and each one that said ok is on disk.
    expect(head).toBeGreaterThan(3);
    expect(text.startsWith(`head ${head}\n`)).toBe(true);
    // A shell's `>>` opens the file, then writes: an append whose open came before the rename
    // and whose write after it goes to the replaced file, and no rename-based writer can see
    // that (the README's "window of one rename"). 1 of 100 here; before, 21-37 of 100.
    expect(lost.length).toBeLessThanOrEqual(lines / 20);
  }, 60_000);

  it("loses few appends while apply_patch changes five files, one of them appended to", async () => {
    const names = ["a", "b", "c", "d", "e"].map((name) => `${name}.txt`);
    for (const name of names) await writeFile(path.join(workspace, name), `head 0\n${"filler\n".repeat(50)}`);
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const lines = 100;
    let done = false;
    const appending = appender(path.join(workspace, "c.txt"), lines).then((code) => {
      done = true;
      return code;
    });
    let head = 0;
    const failures: string[] = [];
    while (!done) {
      const patch = names.map((name) => `*** Update File: ${name}\n@@\n-head ${head}\n+head ${head + 1}\n`).join("");
      const result = await run.call("apply_patch", { patch: `*** Begin Patch\n${patch}*** End Patch\n` });
      if (result.ok) head++;
      else if (result.error.code !== "version_conflict") failures.push(`${result.error.code}: ${result.error.message}`);
    }
    expect(await appending).toBe(0);
    expect(failures).toEqual([]);
    const text = await readFile(path.join(workspace, "c.txt"), "utf8");
    const lost = Array.from({ length: lines }, (_, index) => index).filter((index) => !text.includes(`\nappended ${index}\n`));
    expect(head).toBeGreaterThan(3);
    for (const name of names)
      expect((await readFile(path.join(workspace, name), "utf8")).startsWith(`head ${head}\n`)).toBe(true);
    // Several files: the intent log's commit (two flushes) still lies between the last look and
    // the renames (8-9 of 100 appends lost here); before, the temporary files' flushes did too
    // (44-46 of 100).
    expect(lost.length).toBeLessThanOrEqual(lines / 4);
  }, 60_000);
});
