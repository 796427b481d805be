import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProcessSandbox, SandboxCapabilities, SandboxedCommand } from "../../src/tools/sandbox/process-sandbox.js";
import { runSandboxed, type SandboxedResult } from "../../src/tools/sandbox/run-sandboxed.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

/** Real directories a driver under test is created for. */
export interface SandboxFixture {
  /** The workspace (a real path), with a `.git` directory holding `hooks/` and `config`. */
  readonly workspace: string;
  /** A host directory outside the workspace, holding `host-file.txt`. */
  readonly outside: string;
}

/** One driver configuration and what the test (not the driver) expects it to allow. */
export interface DriverUnderTest {
  /** Shown in the test names. */
  readonly name: string;
  /** A reason to skip the whole suite (for example the wrong platform), or `false`. */
  readonly skip: string | false;
  /** Creates the sandbox for the fixture. */
  readonly create: (fixture: SandboxFixture) => Promise<ProcessSandbox>;
  /** What a process in it must be able to reach; checked against the driver's claim and reality. */
  readonly expected: SandboxCapabilities;
}

const HOST_FILE_CONTENT = "visible on the host";

/** The conformance suite every {@link ProcessSandbox} driver passes, run for real. */
export function describeProcessSandbox(driver: DriverUnderTest): void {
  describe.skipIf(driver.skip !== false)(`${driver.name}${driver.skip === false ? "" : ` (skipped: ${driver.skip})`}`, () => {
    const context = useSandboxFixture(driver);
    describeBasics(context);
    describeNetworkConfinement(context, driver.expected);
    describeFileConfinement(context, driver.expected);
    describeEnvironmentConfinement(context, driver.expected);
  });
}

interface SuiteContext {
  readonly sandbox: () => ProcessSandbox;
  readonly fixture: () => SandboxFixture;
  readonly tcpPort: () => number;
  readonly tcpConnections: () => number;
  readonly unixSocket: () => string;
  readonly unixConnections: () => number;
}

function useSandboxFixture(driver: DriverUnderTest): SuiteContext {
  const directories = new TemporaryDirectories();
  let sandbox: ProcessSandbox | undefined;
  let fixture: SandboxFixture | undefined;
  const counts = { tcp: 0, unix: 0 };
  const tcp = net.createServer((socket) => {
    counts.tcp++;
    socket.on("error", () => undefined);
    socket.end("hello from tcp");
  });
  const unix = net.createServer((socket) => {
    counts.unix++;
    socket.on("error", () => undefined);
    socket.end("hello from unix");
  });
  const previous = { SECRET_TOKEN: process.env.SECRET_TOKEN, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY };
  beforeAll(async () => {
    const workspace = await directories.make("atc-conf-ws-");
    const outside = await directories.make("atc-conf-out-");
    await mkdir(path.join(workspace, ".git", "hooks"), { recursive: true });
    await writeFile(path.join(workspace, ".git", "config"), "[core]\n\tbare = false\n");
    await mkdir(path.join(workspace, "sub"));
    await writeFile(path.join(outside, "host-file.txt"), HOST_FILE_CONTENT);
    fixture = { workspace, outside };
    process.env.SECRET_TOKEN = "host-secret-token";
    process.env.AWS_SECRET_ACCESS_KEY = "host-aws-secret";
    await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => unix.listen(path.join(workspace, "daemon.sock"), resolve));
    sandbox = await driver.create(fixture);
  });
  afterAll(async () => {
    for (const [name, value] of Object.entries(previous)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await Promise.all([new Promise((resolve) => tcp.close(resolve)), new Promise((resolve) => unix.close(resolve))]);
    await directories.cleanup();
  });
  const required = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("the suite's beforeAll did not run");
    return value;
  };
  return {
    sandbox: () => required(sandbox),
    fixture: () => required(fixture),
    tcpPort: () => {
      const address = tcp.address();
      if (address === null || typeof address === "string") throw new Error("the TCP server is not listening");
      return address.port;
    },
    tcpConnections: () => counts.tcp,
    unixSocket: () => path.join(required(fixture).workspace, "daemon.sock"),
    unixConnections: () => counts.unix,
  };
}

/** Runs `node -e script` in the sandbox with the workspace as the working directory. */
function runNode(context: SuiteContext, script: string, extra: Partial<SandboxedCommand> = {}): Promise<SandboxedResult> {
  const { args = [], ...rest } = extra;
  return runSandboxed(context.sandbox(), {
    command: process.execPath,
    cwd: context.fixture().workspace,
    ...rest,
    args: ["-e", script, ...args],
  });
}

/** Runs a script that prints one JSON line, and parses it; anything else fails the test. */
async function probeJson(context: SuiteContext, script: string, args: string[] = []): Promise<Record<string, unknown>> {
  const result = await runNode(context, script, { args });
  expect(result.stderr).toBe("");
  expect(result.exitCode).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

function describeBasics(context: SuiteContext): void {
  it("runs a command and reports stdout, stderr and the exit code", async () => {
    const result = await runNode(context, "console.log('out'); console.error('err'); process.exit(7)");
    expect(result).toMatchObject({ exitCode: 7, signal: null, stdout: "out\n" });
    expect(result.stderr).toContain("err");
  });

  it("writes input to stdin and passes explicit environment variables", async () => {
    const result = await runNode(
      context,
      "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(s.toUpperCase()+process.env.GREETING))",
      { input: "hello ", env: { GREETING: "from env" } },
    );
    expect(result.stdout).toBe("HELLO from env\n");
  });

  it("runs in the requested working directory inside the workspace", async () => {
    const result = await runNode(context, "console.log(process.cwd())", { cwd: "sub" });
    expect(result.stdout.trim()).toBe(path.join(context.fixture().workspace, "sub"));
  });

  it("writing inside the workspace works", async () => {
    const result = await runNode(context, "require('fs').writeFileSync('inside.txt', 'written by the sandbox')");
    expect(result.exitCode).toBe(0);
    expect(await readFile(path.join(context.fixture().workspace, "inside.txt"), "utf8")).toBe("written by the sandbox");
  });

  it("kills the process when the signal aborts", async () => {
    const controller = new AbortController();
    const started = Date.now();
    const child = context.sandbox().spawn({
      command: process.execPath,
      args: ["-e", "setTimeout(() => console.log('finished'), 30000)"],
      cwd: context.fixture().workspace,
      signal: controller.signal,
    });
    child.stdout.resume();
    child.stderr.resume();
    setTimeout(() => controller.abort(), 200);
    const exit = await child.exited;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(exit.exitCode === 0).toBe(false);
  });

  it("refuses malformed commands with a readable error", () => {
    expect(() => context.sandbox().spawn({ command: "echo", args: ["a\0b"], cwd: context.fixture().workspace })).toThrowError(
      expect.objectContaining({ code: "invalid_command" }),
    );
  });

  it("reports a command that does not exist as a failure", async () => {
    const result = await runSandboxed(context.sandbox(), {
      command: "atc-no-such-command",
      args: [],
      cwd: context.fixture().workspace,
    });
    expect(result.exitCode === 0).toBe(false);
  });
}

function describeNetworkConfinement(context: SuiteContext, expected: SandboxCapabilities): void {
  it("claims exactly the capabilities this test expects", () => {
    expect(context.sandbox().capabilities).toEqual(expected);
  });

  it(`TCP connect to a server on 127.0.0.1 ${expected.network ? "works" : "fails"}`, async () => {
    const before = context.tcpConnections();
    const script = `require('net').connect(Number(process.argv[1]), '127.0.0.1')
      .on('connect', () => { console.log(JSON.stringify({ connected: true })); process.exit(0); })
      .on('error', (e) => { console.log(JSON.stringify({ connected: false, code: e.code })); process.exit(0); });`;
    const outcome = await probeJson(context, script, [String(context.tcpPort())]);
    expect(outcome.connected).toBe(expected.network);
    expect(context.tcpConnections() - before).toBe(expected.network ? 1 : 0);
  });

  it(`a unix socket connect ${expected.unixSockets ? "works" : "fails"}`, async () => {
    const before = context.unixConnections();
    const script = `require('net').connect(process.argv[1])
      .on('connect', () => { console.log(JSON.stringify({ connected: true })); process.exit(0); })
      .on('error', (e) => { console.log(JSON.stringify({ connected: false, code: e.code })); process.exit(0); });`;
    const outcome = await probeJson(context, script, [context.unixSocket()]);
    expect(outcome.connected).toBe(expected.unixSockets);
    if (!expected.unixSockets) expect(outcome.code).not.toBe("ENOENT");
    expect(context.unixConnections() - before).toBe(expected.unixSockets ? 1 : 0);
  });
}

function describeFileConfinement(context: SuiteContext, expected: SandboxCapabilities): void {
  it(`a host file outside the workspace ${expected.readOutsideWorkspace ? "is" : "is not"} readable`, async () => {
    const script = `try { console.log(JSON.stringify({ content: require('fs').readFileSync(process.argv[1], 'utf8') })); }
      catch (e) { console.log(JSON.stringify({ code: e.code })); }`;
    const outcome = await probeJson(context, script, [path.join(context.fixture().outside, "host-file.txt")]);
    expect(outcome.content === HOST_FILE_CONTENT).toBe(expected.readOutsideWorkspace);
  });

  it(`writing outside the workspace ${expected.writeOutsideWorkspace ? "works" : "fails"}`, async () => {
    const target = path.join(context.fixture().outside, `written-${randomBytes(4).toString("hex")}.txt`);
    const script = `try { require('fs').writeFileSync(process.argv[1], 'x'); console.log(JSON.stringify({ ok: true })); }
      catch (e) { console.log(JSON.stringify({ ok: false, code: e.code })); }`;
    const outcome = await probeJson(context, script, [target]);
    expect(outcome.ok).toBe(expected.writeOutsideWorkspace);
    expect(existsSync(target)).toBe(expected.writeOutsideWorkspace);
  });

  it(`.git/hooks and .git/config ${expected.writeGitMetadata ? "can" : "cannot"} be written`, async () => {
    const { workspace } = context.fixture();
    const script = `const fs = require('fs'); const out = {};
      for (const [k, f] of [['hook', () => fs.writeFileSync('.git/hooks/x', '#!/bin/sh\\necho pwned')],
                            ['config', () => fs.appendFileSync('.git/config', '[core]\\n\\thooksPath = /tmp\\n')],
                            ['rename', () => { fs.renameSync('.git', '.git-moved'); fs.renameSync('.git-moved', '.git'); }]]) {
        try { f(); out[k] = true; } catch (e) { out[k] = false; }
      }
      console.log(JSON.stringify(out));`;
    const outcome = await probeJson(context, script);
    expect(outcome.hook).toBe(expected.writeGitMetadata);
    expect(outcome.config).toBe(expected.writeGitMetadata);
    expect(existsSync(path.join(workspace, ".git", "hooks", "x"))).toBe(expected.writeGitMetadata);
    expect((await readFile(path.join(workspace, ".git", "config"), "utf8")).includes("hooksPath")).toBe(
      expected.writeGitMetadata,
    );
    expect(outcome.rename).toBe(expected.writeGitMetadata);
  });
}

function describeEnvironmentConfinement(context: SuiteContext, expected: SandboxCapabilities): void {
  it(`host secrets like SECRET_TOKEN ${expected.hostEnvironment ? "are" : "are not"} visible`, async () => {
    const script = `console.log(JSON.stringify({ token: process.env.SECRET_TOKEN ?? null, aws: process.env.AWS_SECRET_ACCESS_KEY ?? null,
      path: Boolean(process.env.PATH) }))`;
    const outcome = await probeJson(context, script);
    expect(outcome.token === "host-secret-token").toBe(expected.hostEnvironment);
    expect(outcome.aws === "host-aws-secret").toBe(expected.hostEnvironment);
    expect(outcome.path).toBe(true);
  });

  it(`a file written to /tmp ${expected.sharedTmp ? "appears" : "does not appear"} in the host's /tmp`, async () => {
    const marker = path.join("/tmp", `atc-marker-${randomBytes(6).toString("hex")}`);
    try {
      const script = `try { require('fs').writeFileSync(process.argv[1], 'x'); } catch {} console.log(JSON.stringify({}))`;
      await probeJson(context, script, [marker]);
      expect(existsSync(marker)).toBe(expected.sharedTmp);
    } finally {
      await rm(marker, { force: true });
    }
  });
}
