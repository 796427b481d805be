import { existsSync } from "node:fs";
import { chmod, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { SandboxExecSandbox } from "../../src/tools/sandbox/sandbox-exec-sandbox.js";
import { describeProcessSandbox } from "./process-sandbox-suite.js";
import { TemporaryDirectories } from "./support/temporary-directories.js";

const skip = process.platform === "darwin" ? false : "sandbox-exec exists on macOS only";

describeProcessSandbox({
  name: "sandbox-exec, scope workspace",
  skip,
  create: async ({ workspace }) => createProcessSandbox({ scope: "workspace", workspace }),
  expected: {
    network: false,
    unixSockets: false,
    readOutsideWorkspace: true,
    writeOutsideWorkspace: false,
    writeGitMetadata: false,
    hostEnvironment: false,
    sharedTmp: false,
  },
});

describeProcessSandbox({
  name: "sandbox-exec, scope local",
  skip,
  create: async ({ workspace }) => createProcessSandbox({ scope: "local", workspace }),
  expected: {
    network: false,
    unixSockets: false,
    readOutsideWorkspace: true,
    writeOutsideWorkspace: true,
    writeGitMetadata: true,
    hostEnvironment: true,
    sharedTmp: true,
  },
});

// sandbox-exec itself cannot run off macOS; a stand-in that prints what it was given checks, for
// real, how the driver calls it: profile, parameters, `--`, the command, and the environment.
describe.skipIf(process.platform === "win32")("SandboxExecSandbox command line (stand-in executable)", () => {
  const directories = new TemporaryDirectories();
  afterAll(() => directories.cleanup());

  async function standIn(): Promise<{ workspace: string; executable: string }> {
    const workspace = await directories.make("atc-sbx-ws-");
    const tools = await directories.make("atc-sbx-tools-");
    const executable = path.join(tools, "sandbox-exec");
    const script = `#!/bin/sh\nfor a in "$@"; do printf '%s\\n' "$a"; done\necho "ENV HOME=$HOME TMPDIR=$TMPDIR SECRET=\${SECRET_TOKEN:-none}"\n`;
    await writeFile(executable, script);
    await chmod(executable, 0o755);
    return { workspace, executable };
  }

  it("workspace scope: passes the profile, the paths as -D and a private TMPDIR, then removes it", async () => {
    const { workspace, executable } = await standIn();
    process.env.SECRET_TOKEN = "host-secret";
    try {
      const sandbox = new SandboxExecSandbox({ scope: "workspace", workspace, executable });
      const result = await runSandboxed(sandbox, { command: "--looks-like-option", args: ["a b"], cwd: workspace });
      const lines = result.stdout.trim().split("\n");
      expect(lines[0]).toBe("-p");
      expect(lines[1]).toBe("(version 1)");
      expect(lines).toContain(`-DWORKSPACE=${workspace}`);
      expect(lines).toContain(`-DGIT_HOOKS=${path.join(workspace, ".git", "hooks")}`);
      const separator = lines.indexOf("--");
      expect(lines.slice(separator + 1, separator + 3)).toEqual(["--looks-like-option", "a b"]);
      const temporary = lines.find((line) => line.startsWith("-DPRIVATE_TMPDIR="))?.slice("-DPRIVATE_TMPDIR=".length) ?? "";
      expect(lines.at(-1)).toBe(`ENV HOME=${temporary} TMPDIR=${temporary} SECRET=none`);
      expect(existsSync(temporary)).toBe(false);
    } finally {
      delete process.env.SECRET_TOKEN;
    }
  });

  it("refuses a working directory outside the workspace", async () => {
    const { workspace, executable } = await standIn();
    const sandbox = new SandboxExecSandbox({ scope: "workspace", workspace, executable });
    expect(() => sandbox.spawn({ command: "true", args: [], cwd: "/" })).toThrowError(
      expect.objectContaining({ code: "path_outside_workspace" }),
    );
  });
});
