/**
 * Escape attempts: stall host processes with file leases. `fcntl(F_SETLEASE)` is granted to a
 * file's owner on a descriptor opened read-only, through a read-only mount too; the sandbox user
 * is the host user outside its namespace, which owns the workspace's files (and, on a root host,
 * every system file). Under a write lease every other process that opens the file, to read it,
 * waits in `open()` until the holder lets go or `fs.lease-break-time` (45 s) passes; a holder that
 * ignores the break notice (SIGIO) and takes the lease again stalls them again. A command holding
 * leases on workspace files would stall the host's editor, git or indexer reading them (ripgrep
 * waited for the holder here), on `/etc/hosts` every name lookup of the host. The seccomp filter
 * denies `F_SETLEASE`; ordinary record locks still work.
 *
 * The host side opens with `O_NONBLOCK`, which reports a held lease (`EAGAIN`) instead of waiting,
 * so the test stalls nothing; the workspace attempt on a system file takes a read lease on
 * `/etc/passwd` (which only stalls writers of that file, during 1.5 s).
 */
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, type ShellOutcome, sh } from "./support/sandbox-harness.js";
import { compileProbes } from "./support/syscall-probes.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");

/** Whether a host process opening `file` now would wait on a lease (`EAGAIN` with `O_NONBLOCK`). */
function leaseHeld(file: string): boolean {
  try {
    closeSync(openSync(file, constants.O_RDONLY | constants.O_NONBLOCK));
    return false;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EAGAIN") return true;
    throw error;
  }
}

/**
 * Runs `command` (a probe that holds a lease 1.5 s once granted) and watches `file` from the host
 * meanwhile: whether any open would have waited, and what the command printed.
 */
async function watchWhile(command: Promise<ShellOutcome>, file: string): Promise<{ stalled: boolean; stdout: string }> {
  let stalled = false;
  let done = false;
  const finished = command.finally(() => {
    done = true;
  });
  while (!done) {
    if (leaseHeld(file)) stalled = true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { stalled, stdout: (await finished).stdout };
}

describe.skipIf(bubblewrap.missing || cc.missing)(bubblewrap.label(cc.label("escape attempts: file leases")), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
    compileProbes(path.join(ground.workspace, "probes"));
  }, 60_000);
  afterAll(async () => ground.dispose());
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  escapeAttempt("resources", "a write lease on a workspace file stalls the host processes that open it", async () => {
    const file = path.join(ground.workspace, "notes.txt");
    writeFileSync(file, "notes\n");
    for (const scope of ["workspace", "local"] as const) {
      const seen = await watchWhile(sh(run(scope), "./probes write-lease notes.txt"), file);
      expect(seen).toEqual({ stalled: false, stdout: "write-lease:errno=1" });
    }
    // Record locks, which build tools and databases take, still work.
    expect((await sh(run("workspace"), "./probes posix-lock notes.txt")).stdout).toBe("posix-lock:ok");
    // Control: unsandboxed the lease is granted and a host open would wait on it.
    expect(await watchWhile(sh(run("unrestricted"), "./probes write-lease notes.txt"), file)).toEqual({
      stalled: true,
      stdout: "write-lease:ok",
    });
  });

  escapeAttempt(
    "resources",
    "a lease on host files through read-only mounts (/etc under workspace, outside under local)",
    async () => {
      const outside = path.join(ground.outside, "shared.txt");
      writeFileSync(outside, "shared\n");
      expect((await sh(run("workspace"), "./probes read-lease /etc/passwd")).stdout).toBe("read-lease:errno=1");
      const local = await watchWhile(sh(run("local"), `./probes write-lease ${quote(outside)}`), outside);
      expect(local).toEqual({ stalled: false, stdout: "write-lease:errno=1" });
      // Control: unsandboxed, the same leases are granted (a host file the host user owns).
      expect((await sh(run("unrestricted"), `./probes write-lease ${quote(outside)}`)).stdout).toBe("write-lease:ok");
    },
  );
});

describe.skipIf(bubblewrap.missing || cc.missing)(
  bubblewrap.label(cc.label("escape attempts: file leases and open waits by other routes")),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
      compileProbes(path.join(ground.workspace, "probes"));
      writeFileSync(path.join(ground.workspace, "notes.txt"), "notes\n");
    }, 60_000);
    afterAll(async () => ground.dispose());
    const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

    escapeAttempt("resources", "F_SETLEASE with bits set above the low 32 of the command (the kernel ignores them)", async () => {
      const file = path.join(ground.workspace, "notes.txt");
      for (const scope of ["workspace", "local"] as const) {
        const seen = await watchWhile(sh(run(scope), "./probes lease-high-bits notes.txt"), file);
        expect(seen, scope).toEqual({ stalled: false, stdout: "lease-high-bits:errno=1" });
      }
      // Control: unsandboxed the kernel reads the command as F_SETLEASE and grants the lease.
      expect(await watchWhile(sh(run("unrestricted"), "./probes lease-high-bits notes.txt"), file)).toEqual({
        stalled: true,
        stdout: "lease-high-bits:ok",
      });
    });

    escapeAttempt("resources", "fanotify permission events (FAN_OPEN_PERM) on a workspace file", async () => {
      for (const scope of ["workspace", "local"] as const) {
        const result = await sh(run(scope), "./probes fanotify-open-perm notes.txt");
        expect(result.stdout, scope).toBe("fanotify-open-perm:errno=1");
      }
      // Control (needs CAP_SYS_ADMIN on the host): unsandboxed as root the mark is taken. Nothing
      // opens the file meanwhile, so nothing waits.
      if (process.getuid?.() === 0) {
        expect((await sh(run("unrestricted"), "./probes fanotify-open-perm notes.txt")).stdout).toBe("fanotify-open-perm:ok");
      }
    });
  },
);
