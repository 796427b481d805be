/**
 * Escape attempts at host processes and at exec limits: ptrace and `/proc/<pid>/mem` of a host
 * process, what the sandbox's own pid 1 (bwrap's init, which a command may trace) holds, and a
 * command longer than the kernel runs as one argument. Controls run the same action unsandboxed.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: processes"), () => {
  let ground: Playground;
  let victim: ChildProcess;
  beforeAll(async () => {
    ground = await playground();
    victim = spawn("sleep", ["300"], { stdio: "ignore" });
  });
  afterAll(async () => {
    await stopProcess(victim);
    await ground.dispose();
  });
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  escapeAttempt("processes", "ptrace a host process and read its memory (workspace, local)", async () => {
    if (process.arch !== "x64") return; // ptrace is syscall 101 on x86_64
    const pid = victim.pid ?? 0;
    // PTRACE_ATTACH (16) then PTRACE_DETACH (17); /proc/<pid>/mem opened for reading.
    const command =
      `perl -e '$r = syscall(101, 16, ${pid}, 0, 0); print "attach:", ($r == 0 ? "ok" : "fail:$!"), "\\n"; ` +
      `select(undef, undef, undef, 0.2); syscall(101, 17, ${pid}, 0, 0); ` +
      `print "mem:", (open(my $m, "<", "/proc/${pid}/mem") ? "open" : "fail:$!"), "\\n"'`;
    for (const scope of ["workspace", "local"] as const) {
      const denied = await sh(run(scope), command);
      expect(denied.stdout).toMatch(/^attach:fail:No such process\nmem:fail:/);
    }
    if (process.getuid?.() === 0) {
      const control = await sh(run("unrestricted"), command);
      expect(control.stdout).toBe("attach:ok\nmem:open");
      process.kill(pid, "SIGCONT"); // the attach stopped it; it stays the same live process
    }
  });

  escapeAttempt("processes", "borrow a descriptor of the sandbox's pid 1 (bwrap's init, traceable)", async () => {
    // The command may trace pid 1 (same uid inside): anything it holds would be the command's.
    const command = "for f in /proc/1/fd/*; do readlink $f; done";
    for (const scope of ["workspace", "local"] as const) {
      const held = (await sh(run(scope), command)).stdout.split("\n");
      expect(held.length).toBeGreaterThan(0);
      for (const target of held) expect(target).toMatch(/^(\/dev\/null|socket:\[\d+\]|pipe:\[\d+\]|anon_inode:\[eventfd\])$/);
    }
    // Control: the same listing of a host process's descriptors shows files.
    const control = (await sh(run("unrestricted"), `for f in /proc/${process.pid}/fd/*; do readlink $f; done`)).stdout;
    expect(control).toMatch(/^\//m);
  });
});

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: exec limits"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  escapeAttempt(
    "resources",
    "a command longer than one exec argument (100,000 three-byte characters)",
    async () => {
      // The schema caps the command at 100,000 characters; in UTF-8 that can be 300,000 bytes,
      // past the kernel's 131,071 bytes per argument.
      for (const scope of ["workspace", "local", "unrestricted"] as const) {
        const run = attackRun(ground.workspace, scope);
        const long = await run.call("bash", { command: `echo ${"€".repeat(99_000)} | wc -c` });
        expect(long.ok).toBe(false);
        if (long.ok) continue;
        expect(long.error.code).toBe("invalid_command");
        expect(long.error.message).toContain("297013 bytes");
        expect(long.error.message).toContain("131071");
        // Control: the longest command the kernel runs (131,071 bytes) does run.
        const prefix = "echo ";
        const suffix = " | wc -c";
        const fill = 131_071 - prefix.length - suffix.length;
        const longest = `${prefix}${"€".repeat(Math.floor(fill / 3))}${"a".repeat(fill % 3)}${suffix}`;
        expect(Buffer.byteLength(longest)).toBe(131_071);
        const control = await sh(run, longest);
        expect(control.status).toBe("exit code 0");
        expect(control.stdout).toBe(String(fill + 1));
      }
    },
    60_000,
  );
});
