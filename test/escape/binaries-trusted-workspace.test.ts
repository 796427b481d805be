/**
 * Escape attempts through programs planted by one run for the sandbox of a later run, in a
 * workspace whose directories look trustworthy: not under the world-writable /tmp but below the
 * host user's home, 0755 all the way up. When the host runs as root, what a sandboxed command
 * creates is owned by root on the host (its uid inside maps to the host's), so ownership and mode
 * checks alone would trust a planted `bwrap`; only "never inside the workspace" stops it. The host
 * puts the workspace's `node_modules/.bin` on its `PATH` as an absolute entry (common in images:
 * `ENV PATH=/app/node_modules/.bin:$PATH`). The control runs a naive lookup, which does pick it.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, realpath, rm } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { createGrepTool } from "../../src/tools/fs/grep-tool.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { outcome, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const originalPath = process.env.PATH;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: binaries planted in a trusted-looking workspace"), () => {
  let base: string;
  let workspace: string;
  let bin: string;
  beforeEach(async () => {
    base = await realpath(await mkdtemp(path.join(homedir(), ".atc-escape-bin-")));
    await chmod(base, 0o755);
    workspace = path.join(base, "ws");
    execFileSync("mkdir", ["-m", "755", workspace]);
    bin = path.join(workspace, "node_modules", ".bin");
    process.env.PATH = `${bin}:${originalPath}`;
  });
  afterEach(async () => {
    process.env.PATH = originalPath;
    await rm(base, { recursive: true, force: true });
  });

  function runIn(sandbox: "workspace" | "local" | "unrestricted"): Run {
    return createRegistry({ tools: [createBashTool(), createGrepTool()] }).createRun({
      profile: "full",
      permissions: { sandbox, workspace },
    });
  }

  /** The first run (a hostile model) plants `name` in node_modules/.bin with safe-looking modes. */
  async function plantFromSandbox(name: string, real: string): Promise<string> {
    const marker = path.join(base, `${name}-ran`);
    const script = `#!/bin/sh\ntouch ${quote(marker)}\nexec ${real} "$@"\n`;
    const planted = await sh(
      runIn("workspace"),
      `mkdir -p node_modules/.bin && printf '%s' ${quote(script)} > node_modules/.bin/${name} && chmod 755 node_modules node_modules/.bin node_modules/.bin/${name} && echo planted`,
    );
    expect(planted.stdout).toContain("planted");
    return marker;
  }

  function naive(name: string): void {
    execFileSync("/bin/sh", ["-c", `${name} --version >/dev/null 2>&1 || true`], {
      cwd: workspace,
      env: { PATH: process.env.PATH },
    });
  }

  escapeAttempt("binaries", "a bwrap planted by one run is the sandbox of the next run (workspace)", async () => {
    const marker = await plantFromSandbox("bwrap", "/usr/bin/bwrap");
    const result = await sh(runIn("workspace"), "echo second");
    expect(result.sandbox).toBe("bubblewrap/workspace");
    expect(existsSync(marker)).toBe(false);
    naive("bwrap");
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a bash planted by one run is the shell of the next (unrestricted and local)", async () => {
    const marker = await plantFromSandbox("bash", "/usr/bin/bash");
    expect((await sh(runIn("local"), "echo $BASH")).stdout).not.toContain(workspace);
    expect((await sh(runIn("unrestricted"), "echo $BASH")).stdout).not.toContain(workspace);
    expect(existsSync(marker)).toBe(false);
    naive("bash");
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "an rg planted by one run is grep's engine in the next", async () => {
    const marker = await plantFromSandbox("rg", "/usr/bin/rg");
    expect(outcome(await runIn("unrestricted").call("grep", { pattern: "x" }))).toContain("[engine:");
    expect(existsSync(marker)).toBe(false);
    naive("rg");
    expect(existsSync(marker)).toBe(true);
  });
});
