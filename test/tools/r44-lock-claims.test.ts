/**
 * Red team round 44: the cross-process lock's `file_locked` errors end "Nothing was written.",
 * which `withoutChangeClaims` (the step claims a caller strips before saying what it knows) did
 * not know. A two-step undo whose second file's lock never came back answered "Undid write #2:
 * b.txt / Then stopped at step 2: ... Nothing was written. The 1 step listed above was undone"
 * while b.txt had been written back: a claim of no write beside a file that was. Every claim of
 * the result is checked against the disk here. The lock is made unobtainable without a second
 * process: a directory in the place of the file's lock file (never released, judged unreadable).
 */
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { okText } from "../support/call-results.js";

const ENV = ["AGENT_TOOL_CATALOG_LOCK_DIR", "AGENT_TOOL_CATALOG_LOCK_WAIT_MS"] as const;
let savedEnv: (readonly [string, string | undefined])[];
let lockDir: string;
let workspace: string;

beforeEach(async () => {
  savedEnv = ENV.map((name) => [name, process.env[name]] as const);
  lockDir = await mkdtemp(path.join(tmpdir(), "atc-r44-locks-"));
  workspace = await mkdtemp(path.join(tmpdir(), "atc-r44-lock-claims-"));
  process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
  process.env.AGENT_TOOL_CATALOG_LOCK_WAIT_MS = "200";
});
afterEach(async () => {
  for (const [name, value] of savedEnv) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await rm(workspace, { recursive: true, force: true });
  await rm(lockDir, { recursive: true, force: true });
});

function session(): Run {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
}
function failure(result: ToolCallResult) {
  if (result.ok) throw new Error(`expected a failure: ${String(result.output)}`);
  return result.error;
}
/** Puts a directory where the lock file of `name` goes: its lock can never be taken. */
async function blockLock(name: string): Promise<string> {
  const key = path.join(await realpath(workspace), name);
  const file = path.join(lockDir, `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.lock`);
  await mkdir(file);
  return file;
}
const text = (name: string) => readFile(path.join(workspace, name), "utf8");

describe("a file_locked step inside a longer answer claims only what the disk shows", () => {
  it("undo of two steps, the second file's lock unobtainable: the first step is said undone, the second changed nothing", async () => {
    const run = session();
    okText(await run.call("write", { path: "a.txt", content: "a new\n" }));
    okText(await run.call("write", { path: "b.txt", content: "b new\n" }));
    const blocked = await blockLock("a.txt");
    const error = failure(await run.call("undo", { steps: 2 }));
    // On disk: b.txt's write was undone (the file it created is gone), a.txt is still as written.
    await expect(text("b.txt")).rejects.toMatchObject({ code: "ENOENT" });
    expect(await text("a.txt")).toBe("a new\n");
    expect(error.code).toBe("file_locked");
    expect(error.message).toMatch(/^Undid write #2: b\.txt\nThen stopped at step 2: /);
    expect(error.message).not.toMatch(/nothing was written/i);
    expect(error.message).toContain("That step changed no file. The 1 step listed above was undone; the rest were not.");

    // Control: the lock obtainable again, the same undo goes on with the step left.
    await rm(blocked, { recursive: true });
    expect(okText(await run.call("undo", {}))).toContain("Undid write #1: a.txt");
    await expect(text("a.txt")).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("apply_patch of two files, one lock unobtainable: one claim that no file changed, and none did", async () => {
    const run = session();
    okText(await run.call("write", { path: "a.txt", content: "a old\n" }));
    okText(await run.call("write", { path: "b.txt", content: "b old\n" }));
    await blockLock("b.txt");
    const patch = [
      "*** Begin Patch",
      "*** Update File: a.txt",
      "@@",
      "-a old",
      "+a new",
      "*** Update File: b.txt",
      "@@",
      "-b old",
      "+b new",
      "*** End Patch",
    ].join("\n");
    const error = failure(await run.call("apply_patch", { patch }));
    expect(error.code).toBe("file_locked");
    expect([await text("a.txt"), await text("b.txt")]).toEqual(["a old\n", "b old\n"]);
    // Said once, for the whole call: not "Nothing was written. No file was changed."
    expect(error.message.match(/nothing was written|no file was changed|nothing was changed/gi)).toHaveLength(1);
  });
});
