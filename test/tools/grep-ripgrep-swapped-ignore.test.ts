/**
 * An ignore file swapped for a named pipe AFTER grep's look at the ignore files (and before
 * ripgrep opens it) blocked ripgrep, so the whole grep call, until `searchTimeoutMs`: the look
 * cannot see the future. ripgrep is now watched while it runs and stopped within about 100 ms when
 * one of its threads waits on a named pipe (or holds one, or a device, open); the JavaScript
 * engine then answers. A real background process swaps `.gitignore` between a regular file and a
 * named pipe in a loop while grep runs again and again: every call answers, long before the
 * timeout. Control: the watch finds nothing to stop in a plain search, and a process blocked on a
 * named pipe is found (and one holding a device open).
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockedOnNamedPipe, fileIdentity } from "../../src/tools/fs/grep-ripgrep-watch.js";
import { type BackgroundLoop, startBackgroundLoop } from "../support/background-loop.js";
import { capability } from "../support/capabilities.js";
import { removeTree } from "../support/remove-tree.js";
import { stopProcess } from "../support/stop-process.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");

/**
 * grep's timeout here: a call that reaches it failed the test (it blocked). Long enough that a call
 * slowed by a loaded machine (one took 5.5 s at load 20-40 with 6 s here) stays under half of it,
 * while a call blocked on the pipe still takes all of it.
 */
const TIMEOUT_MS = 20_000;

/** Swaps `.gitignore` between a named pipe and a regular file every few ms, until killed. */
const SWAPPER = `
while :; do
  mkfifo p.tmp 2>/dev/null; mv -f p.tmp .gitignore; sleep 0.01
  printf 'ignored.txt\\n' > f.tmp; mv -f f.tmp .gitignore; sleep 0.01
done`;

describe.skipIf(ripgrep.missing || process.platform !== "linux")(
  ripgrep.label("grep's ripgrep against an ignore file swapped for a named pipe while it runs"),
  () => {
    let base: string;
    let counter = 0;
    const swappers: BackgroundLoop[] = [];
    beforeAll(async () => {
      base = await mkdtemp(path.join(tmpdir(), "atc-grep-swapped-ignore-"));
    });
    afterAll(async () => {
      await Promise.all(swappers.map((swapper) => swapper.stop()));
      await removeTree(base);
    });

    async function workspace(): Promise<string> {
      const root = path.join(base, `w${++counter}`);
      await mkdir(path.join(root, "sub"), { recursive: true });
      await writeFile(path.join(root, "probe.txt"), "needle\n");
      await writeFile(path.join(root, "sub", "other.txt"), "needle\n");
      return root;
    }

    async function repeatedWhileSwapping(sandbox: "workspace" | "unrestricted") {
      const root = await workspace();
      const swapper = startBackgroundLoop(SWAPPER, { cwd: root });
      swappers.push(swapper);
      const run = createRegistry({ tools: [createGrepTool({ searchTimeoutMs: TIMEOUT_MS })] }).createRun({
        profile: "full",
        permissions: { workspace: root, sandbox },
      });
      const engines: string[] = [];
      try {
        // At least 25 calls, and on until one met the pipe (the swap is timed by chance), at most 300.
        const stopped = () => engines.some((engine) => /ripgrep was stopped: it waited on a named pipe/.test(engine));
        for (let call = 0; call < 300 && (call < 25 || !stopped()); call++) {
          const started = performance.now();
          const result = await run.call("grep", { pattern: "needle" });
          const output = String(result.ok ? result.output : `${result.error.code}: ${result.error.message}`);
          expect(result.ok, output).toBe(true);
          // Blocked, the call took the whole timeout: answered, it took well under half of it.
          expect(performance.now() - started, output).toBeLessThan(TIMEOUT_MS / 2);
          expect(output).toContain("probe.txt:1:needle");
          expect(output).toContain("sub/other.txt:1:needle");
          engines.push(output.split("\n").at(-1) ?? "");
        }
      } finally {
        await swapper.stop();
      }
      return engines;
    }

    it("unsandboxed: every call answers; some by ripgrep stopped on the named pipe", async () => {
      const engines = await repeatedWhileSwapping("unrestricted");
      // That ripgrep met the pipe at least once is what the loop is for.
      expect(
        engines.some((engine) => /ripgrep was stopped: it waited on a named pipe/.test(engine)),
        engines.join("\n"),
      ).toBe(true);
    }, 120_000);

    it.skipIf(bubblewrap.missing)(
      bubblewrap.label("in the workspace sandbox (bwrap): every call answers; some by ripgrep stopped on the named pipe"),
      async () => {
        const engines = await repeatedWhileSwapping("workspace");
        expect(
          engines.some((engine) => /ripgrep was stopped: it waited on a named pipe/.test(engine)),
          engines.join("\n"),
        ).toBe(true);
      },
      120_000,
    );

    it("control: the watch finds a process blocked opening a named pipe, one reading a device, and none in a plain one", async () => {
      const fifo = path.join(base, "control.fifo");
      execFileSync("mkfifo", [fifo]);
      const opener = spawn("cat", [fifo], { stdio: "ignore" });
      const reader = spawn("sh", ["-c", "exec sleep 30 3< /dev/zero"], { stdio: "ignore" });
      const plain = spawn("sleep", ["30"], { stdio: "ignore" });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(blockedOnNamedPipe(opener.pid as number)).toBe("it waited on a named pipe");
        expect(blockedOnNamedPipe(reader.pid as number)).toBe("it held a device open");
        expect(blockedOnNamedPipe(plain.pid as number)).toBeUndefined();
      } finally {
        for (const child of [opener, reader, plain]) child.kill("SIGKILL");
      }
    });

    it("only ripgrep is judged: a parent that holds a device (bwrap setting the sandbox up) is passed over, ripgrep reading one is not", async () => {
      const rg = execFileSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).trim();
      const ripgrep = fileIdentity(rg);
      expect(ripgrep).toBeDefined();
      // A shell holding /dev/zero (as bwrap holds /newroot/dev/full for a moment) above a plain sleep.
      const setup = startBackgroundLoop("exec 3</dev/zero; sleep 30 3<&- & wait");
      // ripgrep itself reading a device: what the watch is for.
      const reading = spawn(rg, ["--no-config", "needle-never-found", "/dev/zero"], { stdio: "ignore" });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(blockedOnNamedPipe(setup.child.pid as number)).toBe("it held a device open");
        expect(blockedOnNamedPipe(setup.child.pid as number, ripgrep)).toBeUndefined();
        expect(blockedOnNamedPipe(reading.pid as number, ripgrep)).toBe("it held a device open");
      } finally {
        await Promise.all([setup.stop(), stopProcess(reading)]);
      }
    });
  },
);
