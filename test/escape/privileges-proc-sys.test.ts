/**
 * Escape attempts at the kernel's global settings through the sandbox's own `/proc`. On a root
 * host the sandbox user (65534 inside) is uid 0 outside its namespace, and the kernel lets uid 0
 * write most of `/proc/sys` with no capability at all (`kernel.core_pattern`,
 * `kernel.modprobe`, `vm.*`, and under `local` the host's `kernel.hostname`): a
 * `core_pattern` of `|/workspace/x` followed by any crash runs `x` as root on the host. bwrap
 * covers `/proc/sysrq-trigger`, `/proc/irq` and `/proc/bus` read-only but skips `/proc/sys`
 * (its directory is never writable, which bwrap takes for "already read-only"), so the library
 * mounts it read-only itself.
 *
 * Each attempt writes back the value it just read: harmless if it gets through, and through the
 * kernel's whole write path. Controls do the same unsandboxed (root only: elsewhere the kernel
 * itself refuses, and the controls say so by being skipped).
 */
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { PROC_MASKS } from "../../src/tools/sandbox/bubblewrap-arguments.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const isRoot = process.getuid?.() === 0;

/** Writes a setting's own value back; prints `wrote` when the kernel took it. */
const rewrite = (setting: string) =>
  `v=$(cat ${setting}) && { printf '%s\\n' "$v" > ${setting}; } 2>/dev/null && echo wrote || echo refused`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: kernel settings (/proc/sys)"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  for (const setting of ["/proc/sys/kernel/core_pattern", "/proc/sys/vm/swappiness"]) {
    escapeAttempt("privileges", `write the host kernel's ${setting} (workspace, local)`, async () => {
      for (const scope of ["workspace", "local"] as const)
        expect((await sh(run(scope), rewrite(setting))).stdout).toBe("refused");
      if (isRoot) expect((await sh(run("unrestricted"), rewrite(setting))).stdout).toBe("wrote");
    });
  }

  escapeAttempt("privileges", "rename the host through /proc/sys/kernel/hostname (local shares its UTS namespace)", async () => {
    const setting = "/proc/sys/kernel/hostname";
    expect((await sh(run("local"), rewrite(setting))).stdout).toBe("refused");
    if (isRoot) expect((await sh(run("unrestricted"), rewrite(setting))).stdout).toBe("wrote");
  });

  escapeAttempt("privileges", "/proc/sys is a read-only mount, and still readable (workspace, local)", async () => {
    const command = "grep -c ' /proc/sys ro,' /proc/self/mountinfo; cat /proc/sys/kernel/pid_max";
    for (const scope of ["workspace", "local"] as const) {
      const [mounts, pidMax] = (await sh(run(scope), command)).stdout.split("\n");
      expect(mounts).toBe("1");
      expect(Number(pidMax)).toBeGreaterThan(0);
    }
    // Control: the host's own /proc/sys is not mounted read-only.
    expect((await sh(run("unrestricted"), command)).stdout.split("\n")[0]).toBe("0");
  });

  escapeAttempt(
    "privileges",
    "driver and file-system files under /proc/fs, /proc/acpi, /proc/scsi are read-only mounts",
    async () => {
      // uid 0 may write some of them (/proc/scsi/scsi adds and removes disks); this kernel has
      // those present on the host, and each must be a read-only mount in the sandbox.
      const present = ["/proc/fs", "/proc/acpi", "/proc/scsi"].filter((entry) => existsSync(entry));
      expect(present.length).toBeGreaterThan(0);
      const command = present.map((entry) => `grep -c ' ${entry} ro,' /proc/self/mountinfo`).join("; ");
      const readOnly = present.map(() => "1").join("\n");
      for (const scope of ["workspace", "local"] as const) expect((await sh(run(scope), command)).stdout).toBe(readOnly);
      // Control: on the host they are part of its writable /proc.
      expect((await sh(run("unrestricted"), command)).stdout).toBe(present.map(() => "0").join("\n"));
    },
  );

  /** How many bytes of each file a command reads (at most 64, `/proc/kcore` is the kernel's memory), or `unreadable`. */
  const firstBytes = (files: readonly string[]) =>
    files
      .map((file) => `c=$(head -c 64 ${file} 2>/dev/null | od -An -c) && echo "${file} \${#c}" || echo "${file} unreadable"`)
      .join("; ");

  escapeAttempt(
    "privileges",
    "read the host's kernel key descriptions (/proc/keys) and timer, scheduler and slab lists (workspace, local)",
    async () => {
      // What runc masks by default; this kernel has /proc/keys, /proc/timer_list, /proc/slabinfo.
      const present = PROC_MASKS.files.filter((file) => existsSync(file));
      expect(present).toEqual(expect.arrayContaining(["/proc/keys", "/proc/timer_list"]));
      const empty = present.map((file) => `${file} 0`).join("\n");
      for (const scope of ["workspace", "local"] as const) expect((await sh(run(scope), firstBytes(present))).stdout).toBe(empty);
      // Control: unsandboxed, as root, the host's key list and timer list are there to read.
      if (isRoot)
        for (const line of (await sh(run("unrestricted"), firstBytes(["/proc/keys", "/proc/timer_list"]))).stdout.split("\n"))
          expect(Number(line.split(" ")[1])).toBeGreaterThan(0);
    },
  );

  escapeAttempt("privileges", "/proc/acpi (and /proc/scsi, /proc/asound) are empty read-only tmpfs mounts", async () => {
    const present = PROC_MASKS.directories.filter((entry) => existsSync(entry));
    expect(present.length).toBeGreaterThan(0);
    const command = present
      .map(
        (entry) =>
          `grep ' ${entry} ' /proc/self/mountinfo | grep -c ' - tmpfs '; ls -A ${entry} | wc -l; touch ${entry}/x 2>/dev/null && echo created`,
      )
      .join("; ");
    const masked = present.map(() => "1\n0").join("\n");
    for (const scope of ["workspace", "local"] as const) expect((await sh(run(scope), command)).stdout).toBe(masked);
    // Control: on the host they are the kernel's own /proc directories.
    expect((await sh(run("unrestricted"), command)).stdout.split("\n")[0]).toBe("0");
  });

  escapeAttempt("privileges", "write /proc/mtrr or open /proc/kmsg as the host's uid 0", async () => {
    // Owned by uid 0, which the sandbox user is outside: the kernel's capability checks refuse
    // them. /proc/kmsg is only opened (its permission check is at open): a read would take
    // messages away from the host's syslog.
    const command =
      "{ echo 'disable=99' > /proc/mtrr; } 2>/dev/null && echo mtrr-written; " +
      "{ exec 3</proc/kmsg; } 2>/dev/null && echo kmsg-opened; echo done";
    for (const scope of ["workspace", "local"] as const) expect((await sh(run(scope), command)).stdout).toBe("done");
    if (isRoot) expect((await sh(run("unrestricted"), "exec 3</proc/kmsg && echo kmsg-opened")).stdout).toBe("kmsg-opened");
  });

  escapeAttempt("privileges", "read the host's kernel log with syslog(2) and dmesg (not through /proc/kmsg)", async () => {
    if (process.arch !== "x64") return;
    // syslog(SYSLOG_ACTION_READ_ALL = 3, buf, 256); x86_64 nr 103. Reading all leaves the log as it is.
    const command = `perl -e '$b = " " x 256; $r = syscall(103, 3, $b, 256); print $r < 0 ? "denied;" : "read;"'; dmesg >/dev/null 2>&1 && echo dmesg-read; echo done`;
    for (const scope of ["workspace", "local"] as const) expect((await sh(run(scope), command)).stdout).toBe("denied;done");
    // Control: as root holding CAP_SYSLOG (bit 34 of CapEff) the same reads work.
    const effective = /^CapEff:\s+([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? "0";
    if (isRoot && ((BigInt(`0x${effective}`) >> 34n) & 1n) === 1n)
      expect((await sh(run("unrestricted"), command)).stdout).toBe("read;dmesg-read\ndone");
  });
});
