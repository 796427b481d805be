/**
 * Escape attempts at the host's terminal: a model's command that reaches the terminal of the
 * developer who started the agent host could type into their shell (TIOCSTI pushes bytes into
 * the terminal's input queue, which the shell then runs as the user, outside every sandbox) or
 * take the terminal over. The host here is a real child process started under `script`, so it
 * has a controlling pseudo-terminal; the command tries `/dev/tty`, TIOCSTI on it and on its own
 * descriptors, and every `/dev/pts` entry it can see. The positive control is the same program
 * started as a plain child of the host, which shares its session and reaches the terminal.
 */
import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { nodeChild } from "../support/child-entry.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, shellOutcome } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const HOST = path.join(import.meta.dirname, "support", "terminal-host.mjs");
const hasScript = spawnSync("script", ["--version"]).status === 0;
const hasPerl = spawnSync("perl", ["-v"]).status === 0;

/** Kernels from 6.2 may turn TIOCSTI off for everyone; then only the open of the terminal is compared. */
function legacyTiocstiAllowed(): boolean {
  try {
    return readFileSync("/proc/sys/dev/tty/legacy_tiocsti", "utf8").trim() !== "0";
  } catch {
    return true; // older kernels have no switch: TIOCSTI works on the controlling terminal
  }
}

// TIOCSTI is 0x5412 on Linux. Each probe prints `<name>:ok` or `<name>:fail:<errno text>`.
const ATTACK = `
use strict;
sub inject { my ($name, $h) = @_; my $c = "X"; my $r = ioctl($h, 0x5412, $c); print "$name:", (defined $r ? "ok" : "fail:$!"), "\\n"; }
if (open(my $t, "+<", "/dev/tty")) { print "devtty:open\\n"; inject("tiocsti_devtty", $t); } else { print "devtty:fail:$!\\n"; }
for my $fd (0, 1, 2) { my $h; if (open($h, "<&=", $fd)) { inject("tiocsti_fd$fd", $h); } }
for my $pts (glob("/dev/pts/[0-9]*")) { if (open(my $h, "+<", $pts)) { print "open:$pts\\n"; inject("tiocsti_$pts", $h); } }
`;

describe.skipIf(bubblewrap.missing || !hasScript || !hasPerl)(
  bubblewrap.label("escape attempts: the host's terminal (TIOCSTI)"),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
      await writeFile(path.join(ground.workspace, "tty.pl"), ATTACK);
    });
    afterAll(async () => ground.dispose());

    /** Runs the attack from a host that owns a pseudo-terminal, with the command under `scope`. */
    async function fromTerminalHost(scope: "workspace" | "local" | "unrestricted" | "host"): Promise<string> {
      const host = nodeChild(HOST, [scope, ground.workspace, "perl tty.pl"]);
      const inner = [process.execPath, ...host.args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
      const child = spawn("script", ["-qec", inner, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"], env: host.env });
      let out = "";
      child.stdout.on("data", (chunk) => (out += String(chunk)));
      child.stderr.on("data", (chunk) => (out += String(chunk)));
      await new Promise((resolve) => child.once("exit", resolve));
      const json = /<<<([\s\S]*?)>>>/.exec(out.replaceAll("\r", ""))?.[1];
      if (json === undefined) throw new Error(`the terminal host printed no outcome:\n${out}`);
      const printed = JSON.parse(json) as { host?: { status: string; stdout: string }; result?: ToolCallResult };
      const parsed = printed.host ?? shellOutcome(printed.result as ToolCallResult);
      expect(parsed.status).toBe("exit code 0");
      return parsed.stdout;
    }

    escapeAttempt(
      "privileges",
      "type into the host's terminal with TIOCSTI, or open it (workspace, local, unrestricted)",
      async () => {
        const control = await fromTerminalHost("host");
        expect(control).toContain("devtty:open");
        if (legacyTiocstiAllowed()) expect(control).toContain("tiocsti_devtty:ok");
        for (const scope of ["workspace", "local", "unrestricted"] as const) {
          const denied = await fromTerminalHost(scope);
          // Every command runs in a session of its own (bwrap --new-session; setsid unsandboxed):
          // no controlling terminal, the host's pseudo-terminals are not in its /dev/pts, and
          // its own descriptors are not terminals.
          expect(denied).toMatch(/^devtty:fail:/);
          // Unrestricted is a plain host process: as root (CAP_SYS_ADMIN) it may TIOCSTI any
          // terminal it opens, by design; only its own session is asserted there.
          if (scope === "unrestricted") continue;
          expect(denied).not.toMatch(/:ok$/m);
          expect(denied).not.toContain("open:/dev/pts/");
        }
      },
      120_000,
    );
  },
);
