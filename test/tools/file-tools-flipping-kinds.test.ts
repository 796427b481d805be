/**
 * A path whose kind keeps changing (regular file, directory, named pipe, symlink, missing) while
 * the file tools use it, flipped by a sandboxed bash loop: every call resolves in bounded time
 * with a structured answer (no raw errno, no host path, no hang). Before: `grep` on a named pipe
 * hung for ever (ripgrep blocks in open), and a link that stopped being one between lstat and
 * readlink reached the model as `tool_failed: EINVAL ... readlink '/tmp/...'`.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createBashTool, createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { fifoHasReader } from "../support/fifo-reader.js";
import { settleWithin } from "../support/settle-within.js";

const bubblewrap = capability("bubblewrap");
let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-kinds-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function runIn(sandbox: "workspace" | "unrestricted", searchTimeoutMs = 60_000): Run {
  const tools = [
    ...createFileTools().filter((tool) => tool.name !== "grep"),
    createGrepTool({ searchTimeoutMs }),
    createBashTool(),
  ];
  return createRegistry({ tools }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

const codeOf = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
/** Rounds of the seven file tools against the flipping path: 28 answers (the window used to need > 20). */
const ROUNDS = 4;

describe("grep and special files", () => {
  for (const sandbox of ["workspace", "unrestricted"] as const) {
    it(`refuses a named pipe as its path at once (${sandbox}); a regular file is searched`, async () => {
      execFileSync("mkfifo", [path.join(workspace, "pipe")]);
      await writeFile(path.join(workspace, "a.txt"), "needle\n");
      const run = runIn(sandbox);
      // "At once" is shown by who holds the pipe, not by the clock (a 3 s wall bound measured the
      // machine at load 20): ripgrep blocked in open is a reader of it, for ever with no writer.
      // The 15 s is only a hang guard, short of the 60 s search deadline that would end the wait.
      const answer = await settleWithin(run.call("grep", { pattern: "x", path: "pipe" }), 15_000, () => "waited 15 s");
      expect(fifoHasReader(path.join(workspace, "pipe")), "a reader left on the pipe").toBe(false);
      expect(typeof answer === "string" ? answer : codeOf(answer)).toBe("special_file_refused");
      const found = await run.call("grep", { pattern: "needle", path: "a.txt" });
      expect(found.ok ? String(found.output) : "").toContain("a.txt:1:needle");
    }, 40_000);
  }
});

describe.skipIf(bubblewrap.missing)(bubblewrap.label("a path flipping between kinds under the file tools"), () => {
  it("every call resolves within its bound with a structured answer", async () => {
    await writeFile(path.join(workspace, "t"), "hello\n");
    const run = runIn("workspace", 1500);
    // The flipper runs until the test's rounds are done (a `stop` file; `timeout` a hang guard),
    // and says when it has started (`flipping`), so every round meets a path that is flipping.
    const flipper = run.call("bash", {
      command:
        "touch flipping; timeout 110 sh -c 'while [ ! -e stop ]; do rm -rf t; mkfifo t; rm -f t; mkdir t; rmdir t; echo hello > t; ln -sf /etc/passwd t; rm -f t; ln -s d t; rm -f t; echo hello > t; done'; true",
      timeout_seconds: 120,
    });
    await expect.poll(() => existsSync(path.join(workspace, "flipping")), { timeout: 30_000 }).toBe(true);
    const answers: { code: string; text: string; ms: number }[] = [];
    const timed = async (call: Promise<ToolCallResult>) => {
      const started = Date.now();
      const result = await call;
      answers.push({ code: codeOf(result), text: JSON.stringify(result), ms: Date.now() - started });
    };
    // A fixed number of rounds, not a time window: a window of 3.5 s held 2 rounds at load 20.
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all([
        timed(run.call("read", { path: "t" })),
        timed(run.call("write", { path: "t", content: "new\n" })),
        timed(run.call("edit", { path: "t", old_text: "hello", new_text: "bye" })),
        timed(run.call("file_inspect", { path: "t" })),
        timed(run.call("ls", { path: "t" })),
        timed(run.call("grep", { pattern: "root", path: "t" })),
        timed(run.call("glob", { pattern: "*", path: "t" })),
      ]);
    }
    await writeFile(path.join(workspace, "stop"), "");
    expect(codeOf(await flipper)).toBe("ok");
    expect(answers.length).toBe(ROUNDS * 7);
    for (const answer of answers) {
      expect(answer.code, answer.text).not.toMatch(/tool_failed|internal/);
      expect(answer.text).not.toMatch(/E[A-Z]{3,}: |readlink '/);
      // A hang guard, not a time claim: a call its 1.5 s search deadline did not end waits for ever
      // (a FIFO the flipper left has no writer). At load 13-16 the slowest of the 28 took 1.1 s.
      expect(answer.ms, answer.text).toBeLessThan(30_000);
    }
  }, 120_000);
});
