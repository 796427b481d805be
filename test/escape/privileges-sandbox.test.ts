/**
 * Escape attempts at privileges: reading root-only files, the host's keyrings, the cgroup file
 * system, namespaces, mounts, other processes. Controls run the same command `unrestricted`
 * (which, on this test host, is often root: where it is not, the root-only controls say so).
 */
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const isRoot = process.getuid?.() === 0;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: privileges"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  escapeAttempt("privileges", "read /etc/shadow (workspace)", async () => {
    expect((await sh(run("workspace"), "head -c 5 /etc/shadow")).stdout).toBe("");
    if (isRoot) expect((await sh(run("unrestricted"), "head -c 5 /etc/shadow")).stdout).toBe("root:");
  });

  escapeAttempt("privileges", "run as root inside the sandbox (workspace and local)", async () => {
    expect((await sh(run("workspace"), "id -u; id -g")).stdout).toBe("65534\n65534");
    expect((await sh(run("local"), "id -u")).stdout).toBe("65534");
    expect((await sh(run("unrestricted"), "id -u")).stdout).toBe(String(process.getuid?.()));
  });

  escapeAttempt("privileges", "hold capabilities inside the sandbox", async () => {
    const caps = (await sh(run("workspace"), "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status")).stdout;
    expect(caps).toMatch(/CapEff:\s+0000000000000000/);
    expect(caps).toMatch(/CapBnd:\s+0000000000000000/);
    if (isRoot) expect((await sh(run("unrestricted"), "grep CapEff /proc/self/status")).stdout).not.toMatch(/\s0+$/);
  });

  escapeAttempt("privileges", "read the host's session keyring with keyctl (perl syscall)", async () => {
    // keyctl(KEYCTL_GET_KEYRING_ID = 0, KEY_SPEC_SESSION_KEYRING = -3, create = 0); x86_64 nr 250.
    if (process.arch !== "x64") return;
    const command = `perl -e '$r = syscall(250, 0, -3, 0, 0, 0); print $r < 0 ? "denied:$!" : "serial:$r"'`;
    expect((await sh(run("workspace"), command)).stdout).toMatch(/^denied:/);
    expect((await sh(run("local"), command)).stdout).toMatch(/^denied:/);
    expect((await sh(run("unrestricted"), command)).stdout).toMatch(/^serial:/);
  });

  escapeAttempt("privileges", "write the cgroup file system to freeze host processes (local)", async () => {
    const command =
      // The v2 root's files, and each v1 hierarchy's root (where /sys/fs/cgroup is a tmpfs of them).
      "for f in /sys/fs/cgroup/cgroup.procs /sys/fs/cgroup/cgroup.freeze /sys/fs/cgroup/*/cgroup.procs; do test -w $f && echo writable $f; done; touch /sys/fs/cgroup/atc 2>&1";
    const denied = await sh(run("local"), command);
    expect(denied.stdout).not.toContain("writable");
    expect(denied.stdout + denied.stderr).toMatch(/Read-only file system|Permission denied|No such file/);
    expect((await sh(run("workspace"), "ls /sys/fs/cgroup 2>&1 | head -1")).stdout).not.toContain("cgroup.procs");
    if (isRoot) {
      try {
        expect((await sh(run("unrestricted"), command)).stdout).toContain("writable");
      } finally {
        // The control really wrote the host's /sys/fs/cgroup (a tmpfs here): leave nothing there.
        rmSync("/sys/fs/cgroup/atc", { force: true });
      }
    }
  });

  escapeAttempt("privileges", "create a nested user namespace (unshare -U)", async () => {
    expect((await sh(run("workspace"), "unshare -Ur id -u && echo made")).stdout).not.toContain("made");
    expect((await sh(run("local"), "unshare -Ur id -u && echo made")).stdout).not.toContain("made");
    expect((await sh(run("unrestricted"), "unshare -Ur id -u && echo made")).stdout).toContain("made");
  });

  escapeAttempt("privileges", "mount a file system over the workspace", async () => {
    const command = "mkdir -p mnt && mount -t tmpfs none mnt && echo mounted";
    expect((await sh(run("workspace"), command)).stdout).not.toContain("mounted");
    expect((await sh(run("unrestricted"), `unshare -Urm sh -c '${command}'`)).stdout).toContain("mounted");
  });

  escapeAttempt("privileges", "chroot out of the sandbox", async () => {
    expect((await sh(run("workspace"), "chroot / true && echo chrooted")).stdout).not.toContain("chrooted");
    if (isRoot) expect((await sh(run("unrestricted"), "chroot / true && echo chrooted")).stdout).toContain("chrooted");
  });

  escapeAttempt("privileges", "signal a host process", async () => {
    const command = `kill -0 ${process.pid} && echo signalled`;
    expect((await sh(run("workspace"), command)).stdout).not.toContain("signalled");
    expect((await sh(run("local"), command)).stdout).not.toContain("signalled");
    expect((await sh(run("unrestricted"), command)).stdout).toContain("signalled");
  });

  escapeAttempt("privileges", "read a host process's environment and command line", async () => {
    const command = `cat /proc/${process.pid}/environ | tr '\\0' '\\n' | grep -c PATH`;
    expect((await sh(run("workspace"), command)).stdout).not.toMatch(/^[1-9]/);
    expect((await sh(run("local"), command)).stdout).not.toMatch(/^[1-9]/);
    expect((await sh(run("unrestricted"), command)).stdout).toMatch(/^[1-9]/);
  });

  escapeAttempt("privileges", "open host block devices through /dev", async () => {
    const command = "ls /dev | grep -cE '^(sd|vd|nvme|xvd|loop|dm-)'";
    expect((await sh(run("workspace"), command)).stdout).toBe("0");
    expect((await sh(run("local"), command)).stdout).toBe("0");
    // Control: the host's /dev has more than the sandbox's minimal one.
    const count = async (scope: "workspace" | "unrestricted") => Number((await sh(run(scope), "ls /dev | wc -l")).stdout);
    expect(await count("unrestricted")).toBeGreaterThan(await count("workspace"));
  });

  escapeAttempt("privileges", "use io_uring to bypass the system-call filter", async () => {
    // io_uring_setup (x86_64 nr 425) with a null params pointer: EFAULT when allowed, EPERM when denied.
    if (process.arch !== "x64") return;
    const command = `perl -e 'syscall(425, 1, 0); print "errno:" . ($!+0)'`;
    expect((await sh(run("workspace"), command)).stdout).toBe("errno:1");
    expect((await sh(run("unrestricted"), command)).stdout).toBe("errno:14");
  });
});
