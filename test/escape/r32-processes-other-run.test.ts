/**
 * Red team round 32: a command of another run, running at the same time. Two runs of one host
 * (two users' agents, or a monitor-like long command of one and a model of the other) each run
 * their commands in the sandbox; the victim's command holds a secret in its environment. The
 * attacker's command knows the victim's pid as the host numbers it (it can be guessed: pids are
 * sequential) and tries `ptrace(PTRACE_ATTACH)`, `/proc/<pid>/environ`, a signal (`kill 0`, then
 * `SIGSTOP` would freeze it) and `pidfd_open` (the way to `pidfd_getfd`, which copies another
 * process's descriptors), and scans every `/proc/<pid>/environ` it can see for the secret. Held
 * when, under `workspace` and `local`: every try is `No such process` (each command has its own
 * pid namespace) and the scan finds nothing. Control: the same program unsandboxed reads the
 * secret, signals and opens a pidfd of the same sandboxed victim, and its scan finds it (its
 * attach is refused too: `ESRCH` on this kernel for a process inside bwrap's namespaces).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = `r32-other-run-secret-${process.pid}`;

/** PTRACE_ATTACH (16) and DETACH (17), environ, kill 0, pidfd_open (434) of the pid given. */
const PROBE = `my $p = shift;
my $r = syscall(101, 16, $p, 0, 0); print "attach:", ($r == 0 ? "ok" : "fail:$!"), "\\n";
if ($r == 0) { select(undef, undef, undef, 0.2); syscall(101, 17, $p, 0, 0) }
if (open(my $e, "<", "/proc/$p/environ")) { local $/; my $t = <$e>; print "environ:", ($t =~ /${SECRET}/ ? "secret" : "other"), "\\n" } else { print "environ:fail:$!\\n" }
print "kill:", (kill(0, $p) ? "ok" : "fail:$!"), "\\n";
my $fd = syscall(434, $p, 0); print "pidfd:", ($fd >= 0 ? "ok" : "fail:$!"), "\\n";`;

const probe = (pid: number) => `perl -e ${quote(PROBE)} ${pid}; grep -l ${SECRET} /proc/[0-9]*/environ 2>/dev/null | wc -l`;

/** The host pid of the process whose argv[0] is `r32-victim` and whose environment holds the secret. */
function victimPid(): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(path.join("/proc", entry, "environ"), "latin1");
      const argv0 = readFileSync(path.join("/proc", entry, "cmdline"), "latin1").split("\0")[0];
      if (environ.includes(SECRET) && argv0 === "r32-victim") return Number(entry);
    } catch {}
  }
  return undefined;
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 32, another run's command"), () => {
  let attacker: Playground;
  let victim: Playground;
  beforeAll(async () => {
    attacker = await playground();
    victim = await playground();
  });
  afterAll(async () => {
    await attacker.dispose();
    await victim.dispose();
  });

  escapeAttempt(
    "processes",
    "ptrace, /proc/<pid>/environ, kill and pidfd_open of another run's running command, by its host pid (workspace, local)",
    async () => {
      if (process.arch !== "x64") return; // ptrace is 101 and pidfd_open 434 on x86_64
      const victimRun = attackRun(victim.workspace, "workspace");
      const running = sh(
        victimRun,
        `R32_VICTIM=${SECRET} exec -a r32-victim sh -c 'touch ready; while [ ! -e stop ]; do sleep 0.1; done; echo stopped'`,
      );
      try {
        let pid: number | undefined;
        for (let tries = 0; pid === undefined && tries < 600; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          pid = victimPid();
        }
        expect(pid, "the victim started").toBeDefined();
        for (const scope of ["workspace", "local"] as const) {
          const denied = await sh(attackRun(attacker.workspace, scope), probe(pid as number));
          expect(denied.stdout, scope).toBe(
            "attach:fail:No such process\nenviron:fail:No such file or directory\nkill:fail:No such process\npidfd:fail:No such process\n0",
          );
        }
        // Control: unsandboxed, the same program reaches the same sandboxed victim (as root: the
        // victim's user namespace is the host user's).
        if (process.getuid?.() === 0) {
          const control = await sh(attackRun(attacker.workspace, "unrestricted"), probe(pid as number));
          process.kill(pid as number, "SIGCONT"); // the attach stopped it
          // The attach itself is refused to the host too (ESRCH on this kernel, for a process in
          // bwrap's namespaces; round 17's processes-sandbox shows it works on a host process).
          expect(control.stdout).toMatch(/^attach:[^\n]*\nenviron:secret\nkill:ok\npidfd:ok\n[1-9]\d*$/);
        }
      } finally {
        await sh(attackRun(victim.workspace, "workspace"), "touch stop");
        expect((await running).stdout).toContain("stopped");
      }
    },
    120_000,
  );
});
