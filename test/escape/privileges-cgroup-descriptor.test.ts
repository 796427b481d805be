/**
 * Escape attempt: start a process in a host cgroup through a descriptor of a read-only cgroup
 * directory. `clone3(CLONE_INTO_CGROUP)` takes the group as a directory descriptor; the kernel
 * checks write permission on that group's `cgroup.procs` inode (the sandbox user is the host user
 * outside, root on a root host), never the read-only flag of the mount the descriptor came from.
 * Under `local` (`/sys` bound read-only) a command could so start children in any host group of
 * a cgroup v2 hierarchy, outside its own pids and memory limits. The seccomp filter answers
 * `clone3` with `ENOSYS` (its flags are in memory a filter cannot read); glibc then uses `clone`.
 *
 * The group is a fresh empty one the test makes in the host's v2 hierarchy (on a hybrid host
 * such as this project's, `/sys/fs/cgroup/unified`, which holds no controllers): being started in
 * it is the host state the read-only mount was meant to keep the command from changing.
 */
import { mkdirSync, rmdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability, writableCgroup2Mount } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";
import { compileProbes } from "./support/syscall-probes.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");
const cgroup2 = capability("cgroup2");

describe.skipIf(bubblewrap.missing || cc.missing || cgroup2.missing)(
  bubblewrap.label(cc.label(cgroup2.label("escape attempts: a cgroup through a read-only descriptor"))),
  () => {
    let ground: Playground;
    let group: string;
    beforeAll(async () => {
      ground = await playground();
      compileProbes(path.join(ground.workspace, "probes"));
      group = path.join(writableCgroup2Mount() as string, `atc-escape-${process.pid}-${Date.now()}`);
      mkdirSync(group);
    }, 60_000);
    afterAll(async () => {
      rmdirSync(group);
      await ground.dispose();
    });
    const probe = async (scope: "workspace" | "local" | "unrestricted") =>
      (await sh(attackRun(ground.workspace, scope), `./probes clone3-into-cgroup ${quote(group)}`)).stdout;

    escapeAttempt("privileges", "start a child in a host cgroup v2 group with clone3(CLONE_INTO_CGROUP) (local)", async () => {
      // Exactly this line: the call is answered before any child exists, in no group at all.
      expect(await probe("local")).toBe("clone3-into-cgroup:errno=38");
      // The workspace sandbox has no /sys: no group directory to hold.
      expect(await probe("workspace")).toBe("open-group:errno=2");
      // Programs still start threads and children: glibc falls back to clone on ENOSYS.
      const node = await sh(
        attackRun(ground.workspace, "local"),
        `${quote(process.execPath)} -e 'new Promise((r) => setTimeout(r, 5)).then(() => console.log("threads"))'; (echo forked) | cat`,
      );
      expect(node.stdout).toBe("threads\nforked");
      // Control: unsandboxed, the child starts in the group the descriptor names.
      const relative = `/${path.basename(group)}`;
      expect(await probe("unrestricted")).toBe(`clone3-child:${relative}\nclone3-into-cgroup:ok`);
    });
  },
);
