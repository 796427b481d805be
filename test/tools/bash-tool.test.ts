import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "../../src/tools/sandbox/sandbox-unavailable-error.js";
import { type BashToolOptions, createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";

let workspace: string;
let outside: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-bash-"));
  outside = await mkdtemp(path.join(tmpdir(), "atc-bash-out-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function bashRun(sandbox: SandboxScope, options: BashToolOptions = {}) {
  return createRegistry({ tools: [createBashTool(options)] }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

function output(result: ToolCallResult): string {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
}

const bubblewrap = capability("bubblewrap");

describe("bash", () => {
  it("runs a command and reports exit code, stdout and stderr", async () => {
    const text = output(await bashRun("unrestricted").call("bash", { command: "echo out; echo err >&2; exit 3" }));
    expect(text).toMatch(/^exit code 3 · \d+ ms · cwd \. · sandbox unsandboxed\/unrestricted\nstdout:\nout\nstderr:\nerr$/);
  });

  it("kills a command at its timeout and when the call is aborted", async () => {
    const run = bashRun("unrestricted");
    expect(output(await run.call("bash", { command: "sleep 20", timeout_seconds: 1 }))).toMatch(/^timed out after 1 s/);
    const controller = new AbortController();
    const pending = run.call("bash", { command: "sleep 20" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    const result = await pending;
    expect(result.ok ? "" : result.error.code).toBe("aborted");
  });

  it.skipIf(bubblewrap.missing)(
    bubblewrap.label("in the workspace sandbox, writes inside and cannot write outside, reach the network or see secrets"),
    async () => {
      const server = createServer((socket) => socket.end("hello"));
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const port = (server.address() as AddressInfo).port;
      process.env.ATC_TEST_SECRET_TOKEN = "s3cret";
      try {
        const run = bashRun("workspace");
        const text = output(
          await run.call("bash", {
            command: [
              "echo inside > inside.txt",
              `echo outside > ${outside}/escaped.txt 2>/dev/null || echo write-refused`,
              `(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo connected || echo network-refused`,
              "printenv ATC_TEST_SECRET_TOKEN || echo secret=none",
            ].join("; "),
          }),
        );
        expect(text).toContain("sandbox bubblewrap/workspace");
        expect(text).toContain("write-refused");
        expect(text).toContain("network-refused");
        expect(text).toContain("secret=none");
        expect(await readFile(path.join(workspace, "inside.txt"), "utf8")).toBe("inside\n");
        await expect(stat(path.join(outside, "escaped.txt"))).rejects.toThrow();
      } finally {
        delete process.env.ATC_TEST_SECRET_TOKEN;
        server.close();
      }
    },
  );

  it.skipIf(bubblewrap.missing)(bubblewrap.label("in the local sandbox, reads host files but has no network"), async () => {
    await writeFile(path.join(outside, "host.txt"), "host file");
    const text = output(
      await bashRun("local").call("bash", {
        command: `cat ${outside}/host.txt; (exec 3<>/dev/tcp/127.0.0.1/9) 2>/dev/null && echo connected || echo network-refused`,
      }),
    );
    expect(text).toContain("host file");
    expect(text).toContain("network-refused");
  });

  it("fails closed, with the reason and the fix, when the sandbox cannot start", async () => {
    const unavailable = async () => {
      throw new SandboxUnavailableError("bubblewrap (bwrap) is not installed. Install it: apt-get install -y bubblewrap.");
    };
    const result = await bashRun("workspace", { createSandbox: unavailable }).call("bash", { command: "echo hi" });
    expect(result.ok ? undefined : result.error).toMatchObject({
      code: "sandbox_unavailable",
      message: expect.stringContaining("apt-get install -y bubblewrap"),
    });
  });

  it("refuses a cwd outside the workspace", async () => {
    const result = await bashRun("workspace").call("bash", { command: "pwd", cwd: outside });
    expect(result.ok ? undefined : result.error.code).toBe("path_outside_workspace");
  });
});
