/**
 * Escape attempts through the programs the host runs: a model-written `bwrap`, `bash` or `rg` on
 * a relative or writable `PATH` entry, and the sandbox launcher's own binary. The control runs a
 * naive `PATH` lookup from the same place, which does pick the planted program.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { chmod, chown, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const originalPath = process.env.PATH;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: binaries"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  afterEach(() => {
    process.env.PATH = originalPath;
  });

  /** Writes an executable `name` into `directory` that leaves a marker, then runs the real one. */
  async function plant(directory: string, name: string, real: string): Promise<string> {
    await mkdir(directory, { recursive: true });
    const marker = path.join(ground.outside, `${name}-${path.basename(directory)}-ran`);
    await writeFile(path.join(directory, name), `#!/bin/sh\ntouch '${marker}'\nexec ${real} "$@"\n`);
    await chmod(path.join(directory, name), 0o755);
    return marker;
  }

  /** What a naive lookup on `searchPath` from the workspace runs: the control. */
  function naive(name: string, searchPath: string): void {
    execFileSync("/bin/sh", ["-c", `${name} --version >/dev/null 2>&1 || true`], {
      cwd: ground.workspace,
      env: { PATH: searchPath },
    });
  }

  escapeAttempt("binaries", "a planted bwrap on a relative PATH entry (./node_modules/.bin)", async () => {
    const marker = await plant(path.join(ground.workspace, "node_modules", ".bin"), "bwrap", "/usr/bin/bwrap");
    process.env.PATH = `./node_modules/.bin:${originalPath}`;
    const result = await sh(attackRun(ground.workspace, "workspace"), "echo hi");
    expect(result.sandbox).toBe("bubblewrap/workspace");
    expect(existsSync(marker)).toBe(false);
    naive("bwrap", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a planted bwrap in a world-writable PATH directory (local scope)", async () => {
    const directory = path.join(ground.outside, "writable-bin");
    const marker = await plant(directory, "bwrap", "/usr/bin/bwrap");
    await chmod(directory, 0o777);
    process.env.PATH = `${directory}:${originalPath}`;
    const result = await sh(attackRun(ground.workspace, "local"), "echo hi");
    expect(result.sandbox).toBe("bubblewrap/local");
    expect(existsSync(marker)).toBe(false);
    naive("bwrap", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a planted bwrap in a PATH directory owned by another user", async () => {
    const directory = path.join(ground.outside, "other-owner-bin");
    const marker = await plant(directory, "bwrap", "/usr/bin/bwrap");
    if (process.getuid?.() === 0) await chown(directory, 65534, 65534);
    else await chmod(directory, 0o777);
    process.env.PATH = `${directory}:${originalPath}`;
    expect((await sh(attackRun(ground.workspace, "workspace"), "echo hi")).sandbox).toBe("bubblewrap/workspace");
    expect(existsSync(marker)).toBe(false);
    naive("bwrap", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a planted bwrap inside the workspace on an absolute PATH entry", async () => {
    const directory = path.join(ground.workspace, "tools-bin");
    const marker = await plant(directory, "bwrap", "/usr/bin/bwrap");
    process.env.PATH = `${directory}:${originalPath}`;
    expect((await sh(attackRun(ground.workspace, "workspace"), "echo hi")).sandbox).toBe("bubblewrap/workspace");
    expect(existsSync(marker)).toBe(false);
    naive("bwrap", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a planted bash on a relative PATH entry (local scope shell)", async () => {
    const marker = await plant(path.join(ground.workspace, "shell-bin"), "bash", "/usr/bin/bash");
    process.env.PATH = `./shell-bin:${originalPath}`;
    const result = await sh(attackRun(ground.workspace, "local"), "echo $BASH");
    expect(result.stdout).toBe("/usr/bin/bash");
    expect(existsSync(marker)).toBe(false);
    naive("bash", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "a planted rg on a relative PATH entry (grep's engine)", async () => {
    const marker = await plant(path.join(ground.workspace, "rg-bin"), "rg", "/usr/bin/rg");
    process.env.PATH = `./rg-bin:${originalPath}`;
    expect(outcome(await attackRun(ground.workspace, "unrestricted").call("grep", { pattern: "x" }))).toContain("[engine:");
    expect(existsSync(marker)).toBe(false);
    naive("rg", process.env.PATH);
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt("binaries", "overwrite the host's bwrap through /proc/1/exe", async () => {
    const digest = () => createHash("sha256").update(readFileSync("/usr/bin/bwrap")).digest("hex");
    const before = digest();
    const result = await sh(
      attackRun(ground.workspace, "workspace"),
      "readlink /proc/1/exe; printf x > /proc/1/exe; printf x >> /proc/1/exe; cp /bin/true /proc/1/exe",
    );
    // Control: the vector exists (pid 1 in the sandbox is the bwrap binary of the host).
    expect(result.stdout).toContain("bwrap");
    expect(digest()).toBe(before);
  });

  escapeAttempt("binaries", "LD_PRELOAD a workspace library into the next command", async () => {
    // The model cannot set the environment of a bash call, and a library it writes is only loaded
    // if asked: a planted .bashrc / BASH_ENV file is not read by bash -c.
    const marker = path.join(ground.workspace, "bashrc-ran");
    await writeFile(path.join(ground.workspace, ".bashrc"), `touch '${marker}'\nexport LD_PRELOAD=./evil.so\n`);
    await writeFile(path.join(ground.workspace, ".profile"), `touch '${marker}'\n`);
    const run = attackRun(ground.workspace, "workspace");
    const result = await sh(run, 'echo "[$LD_PRELOAD][$BASH_ENV]"');
    expect(result.stdout).toBe("[][]");
    expect(existsSync(marker)).toBe(false);
    await sh(run, "BASH_ENV=.bashrc bash -c true");
    expect(existsSync(marker)).toBe(true);
  });
});
