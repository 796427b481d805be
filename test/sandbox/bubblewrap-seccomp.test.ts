import { spawn } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localScopeArguments } from "../../src/tools/sandbox/bubblewrap-arguments.js";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { capability } from "../support/capabilities.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const CONNECT = `require('net').connect(process.argv[1])
  .on('connect', () => { console.log('connected'); process.exit(0); })
  .on('error', (e) => { console.log(e.code); process.exit(0); });`;

const directories = new TemporaryDirectories();
let workspace: string;
let socketPath: string;
const server = net.createServer((socket) => {
  socket.on("error", () => undefined);
  socket.end();
});

beforeAll(async () => {
  workspace = await directories.make("atc-bwrap-");
  socketPath = path.join(workspace, "host.sock");
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await directories.cleanup();
});

const bubblewrap = capability("bubblewrap");

/**
 * A sandboxed start may cost at most this many plain spawns of `true` (measured 6-9 at load ~7; 15.6 with a launcher 200 ms slower),
 * when that is more than {@link START_BOUND_MS}: the bound scales with the load the reference meets.
 */
const START_RATIO = 12;
/** The bound on the median sandboxed start when plain spawns are fast (an unloaded machine). */
const START_BOUND_MS = 250;

/** Spawns `true` with no sandbox and resolves with its exit code once it has closed. */
function plainTrue(cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn("true", [], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    child.on("error", reject);
    child.on("close", resolve);
  });
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("bubblewrap with the seccomp filter, for real"), () => {
  it("without the filter, --unshare-net alone still lets a unix socket connect (why the filter exists)", async () => {
    const child = spawn("bwrap", [...localScopeArguments(), "--", process.execPath, "-e", CONNECT, socketPath], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await new Promise((resolve) => child.once("close", resolve));
    expect(output.trim()).toBe("connected");
  });

  it.each(["local", "workspace"] as const)("scope %s: a unix socket connect fails with EPERM", async (scope) => {
    const sandbox = new BubblewrapSandbox({ scope, workspace });
    const result = await runSandboxed(sandbox, { command: process.execPath, args: ["-e", CONNECT, socketPath], cwd: workspace });
    expect(result.stdout.trim()).toBe("EPERM");
  });

  it("node -e, git --version and a shell pipeline still run", async () => {
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
    const node = await runSandboxed(sandbox, { command: process.execPath, args: ["-e", "console.log(6 * 7)"], cwd: workspace });
    expect(node).toMatchObject({ exitCode: 0, stdout: "42\n" });
    const git = await runSandboxed(sandbox, { command: "git", args: ["--version"], cwd: workspace });
    expect(git.exitCode).toBe(0);
    expect(git.stdout).toMatch(/^git version \d/);
    const shell = await runSandboxed(sandbox, { command: "sh", args: ["-c", "echo piped | tr a-z A-Z"], cwd: workspace });
    expect(shell.stdout).toBe("PIPED\n");
  });

  it("denies socketpair by default, which breaks Node child processes with pipes; the option restores them", async () => {
    const script =
      "try { console.log(require('child_process').execFileSync('echo', ['child ok']).toString().trim()); } catch (e) { console.log(e.code); }";
    const strict = new BubblewrapSandbox({ scope: "workspace", workspace });
    const relaxed = new BubblewrapSandbox({ scope: "workspace", workspace, allowUnixSocketPairs: true });
    const strictResult = await runSandboxed(strict, { command: process.execPath, args: ["-e", script], cwd: workspace });
    expect(strictResult.stdout.trim()).toBe("EPERM");
    const relaxedResult = await runSandboxed(relaxed, { command: process.execPath, args: ["-e", script], cwd: workspace });
    expect(relaxedResult.stdout.trim()).toBe("child ok");
    const connect = await runSandboxed(relaxed, { command: process.execPath, args: ["-e", CONNECT, socketPath], cwd: workspace });
    expect(connect.stdout.trim()).toBe("EPERM");
  });

  it("ignores fields a request should not have: nothing in a command turns the sandbox off", async () => {
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
    expect(Object.isFrozen(sandbox)).toBe(true);
    const request = {
      command: process.execPath,
      args: ["-e", CONNECT, socketPath],
      cwd: workspace,
      scope: "unrestricted",
      sandbox: false,
    };
    const result = await runSandboxed(sandbox, request);
    expect(result.stdout.trim()).toBe("EPERM");
  });

  it("refuses a working directory outside the workspace", () => {
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
    expect(() => sandbox.spawn({ command: "true", args: [], cwd: "/etc" })).toThrowError(
      expect.objectContaining({ code: "path_outside_workspace" }),
    );
    expect(() => sandbox.spawn({ command: "true", args: [], cwd: "../" })).toThrowError(
      expect.objectContaining({ code: "path_outside_workspace" }),
    );
  });

  it("treats a command that looks like a bwrap option as the command, not an option", async () => {
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
    const result = await runSandboxed(sandbox, { command: "--bind", args: ["/", "/"], cwd: workspace });
    expect(result.exitCode === 0).toBe(false);
    expect(result.stderr).toMatch(/--bind/);
  });

  it("fails closed when .git/config is a symlink it cannot pin", async () => {
    const repository = await directories.make("atc-bwrap-git-");
    await mkdir(path.join(repository, ".git", "hooks"), { recursive: true });
    await writeFile(path.join(repository, "real-config"), "[core]\n");
    await symlink("../real-config", path.join(repository, ".git", "config"));
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace: repository });
    expect(() => sandbox.spawn({ command: "true", args: [], cwd: repository })).toThrowError(
      expect.objectContaining({
        code: "sandbox_unavailable",
        message: expect.stringContaining(".git/config is a symbolic link"),
      }),
    );
  });

  it("starts in a few milliseconds (median of 20 runs of true, against plain spawns of true)", async () => {
    // Against a reference in the same run, not a wall-clock bound alone: at load 36-45 every
    // process start is slow, and the median of plain spawns of `true` (interleaved, so both meet
    // the same load) says by how much.
    const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace });
    const sandboxed: number[] = [];
    const plain: number[] = [];
    for (let run = 0; run < 20; run++) {
      let started = performance.now();
      const result = await runSandboxed(sandbox, { command: "true", args: [], cwd: workspace });
      sandboxed.push(performance.now() - started);
      expect(result.exitCode).toBe(0);
      started = performance.now();
      expect(await plainTrue(workspace)).toBe(0);
      plain.push(performance.now() - started);
    }
    const median = (times: number[]) => [...times].sort((a, b) => a - b)[10] ?? Number.NaN;
    console.log(
      `bwrap workspace spawn of true: median ${median(sandboxed).toFixed(1)} ms, plain spawn median ${median(plain).toFixed(1)} ms`,
    );
    expect(median(sandboxed)).toBeLessThan(Math.max(START_BOUND_MS, START_RATIO * median(plain)));
    // 40 spawns: over the default 20 s at load 30-38 (2 cores, 8 busy loops beside), the time
    // limit and not the ratio failed the test. The ratio is the claim.
  }, 120_000);
});
