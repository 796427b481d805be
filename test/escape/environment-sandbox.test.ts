/**
 * Escape attempts at the host's environment: secrets, preload variables and agent sockets of the
 * host process must not reach a workspace-sandboxed command. Control: under scope `local`, which
 * shares the host environment by design, they do.
 */
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
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
  ] as const) {
    escapeAttempt("environment", `host variable ${name} reaches the workspace sandbox`, async () => {
      set(name, value);
      const command = `printf '%s' "\${${name}:-unset}"`;
      expect((await sh(attackRun(ground.workspace, "workspace"), command)).stdout).toBe("unset");
      expect((await sh(attackRun(ground.workspace, "local"), command)).stdout).toBe(value);
    });
  }

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
