/**
 * Escape attempts at the host's environment: secrets, preload variables and agent sockets of the
 * host process must not reach a workspace-sandboxed command. Control: under scope `local`, which
 * shares the host environment by design, they do.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: environment"), () => {
  let ground: Playground;
  const saved = new Map<string, string | undefined>();
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  afterEach(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    saved.clear();
  });
  function set(name: string, value: string): void {
    if (!saved.has(name)) saved.set(name, process.env[name]);
    process.env[name] = value;
  }

  for (const [name, value] of [
    ["ATC_SECRET_TOKEN", "tok-123-secret"],
    ["AWS_SECRET_ACCESS_KEY", "aws-secret-xyz"],
    ["SSH_AUTH_SOCK", "/tmp/ssh-agent.sock"],
    ["GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch /tmp/x'"],
    ["LD_PRELOAD", "/nonexistent/atc-preload.so"],
    ["NODE_OPTIONS", "--require /nonexistent/atc-hook.js"],
    ["GIT_SSH_COMMAND", "touch /tmp/atc-git-ssh"],
    ["GIT_DIR", "/nonexistent/atc-git-dir"],
    ["PERL5OPT", "-Mnonexistent_atc_module"],
  ] as const) {
    escapeAttempt("environment", `host variable ${name} reaches the workspace sandbox`, async () => {
      set(name, value);
      const command = `printf '%s' "\${${name}:-unset}"`;
      expect((await sh(attackRun(ground.workspace, "workspace"), command)).stdout).toBe("unset");
      expect((await sh(attackRun(ground.workspace, "local"), command)).stdout).toBe(value);
    });
  }

  escapeAttempt("environment", "a host BASH_ENV pointing into the workspace runs model-written code on the host", async () => {
    // The launcher that starts bwrap is bash on the host: it must not read BASH_ENV (nor exported
    // functions), or a file the model writes would run there unsandboxed.
    const marker = path.join(ground.outside, "bash-env-ran");
    const script = path.join(ground.workspace, ".bashenv");
    await writeFile(script, `touch '${marker}'\n`);
    set("BASH_ENV", script);
    set("BASH_FUNC_exec%%", `() { touch '${marker}'; }`);
    await sh(attackRun(ground.workspace, "workspace"), "true");
    expect(existsSync(marker)).toBe(false);
    // Under local the command's own bash may read BASH_ENV (host files are its to write); the
    // launcher must not: a command that is not bash shows it.
    const local = await createProcessSandbox({ scope: "local", workspace: ground.workspace });
    expect((await runSandboxed(local, { command: "/usr/bin/true", args: [], cwd: ground.workspace })).exitCode).toBe(0);
    expect(existsSync(marker)).toBe(false);
    execFileSync("/usr/bin/bash", ["-c", "true"], {
      env: { BASH_ENV: script, PATH: "/usr/bin:/bin" },
      stdio: ["ignore", "ignore", "ignore"],
    });
    expect(existsSync(marker)).toBe(true);
  });

  escapeAttempt(
    "environment",
    "a ~/.bashrc runs on the host when the command's stdin is a pipe (bash's rshd heuristic)",
    async () => {
      const home = path.join(ground.outside, "home");
      const marker = path.join(ground.outside, "bashrc-ran");
      await mkdir(home, { recursive: true });
      await writeFile(path.join(home, ".bashrc"), `touch '${marker}'\n`);
      set("HOME", home);
      // bash applies the heuristic only at shell level 1, as for a host started without a shell.
      set("SHLVL", "0");
      const local = await createProcessSandbox({ scope: "local", workspace: ground.workspace });
      const result = await runSandboxed(local, { command: "/usr/bin/cat", args: [], cwd: ground.workspace, input: "hello" });
      expect(result.stdout).toBe("hello");
      expect(existsSync(marker)).toBe(false);
      // Control: a bash started the same way (stdin a socket pair) without --norc reads it.
      execFileSync("/usr/bin/bash", ["-p", "-c", "true"], { env: { HOME: home, PATH: "/usr/bin:/bin" } });
      expect(existsSync(marker)).toBe(true);
    },
  );

  escapeAttempt("environment", "the host's HOME and its dotfiles are visible", async () => {
    // The workspace itself lives under /tmp on this host, so its mount point is the one entry allowed.
    const command = 'printf "%s\\n" "$HOME"; ls -A "$HOME" | grep -v "^atc-escape-ws-" | head -3';
    const denied = await sh(attackRun(ground.workspace, "workspace"), command);
    expect(denied.stdout.split("\n")[0]).toBe("/tmp");
    expect(denied.stdout.split("\n").length).toBe(1);
    const control = await sh(attackRun(ground.workspace, "local"), command);
    expect(control.stdout.split("\n")[0]).toBe(process.env.HOME);
  });
});
