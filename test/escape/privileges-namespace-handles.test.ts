/**
 * Escape attempts through kernel interfaces that hand out mounts, namespaces and processes by
 * descriptor, beside the `mount`, `unshare` and `/proc/<pid>` routes earlier rounds tried: the new
 * mount API (`fsopen`, `open_tree`, `mount_setattr` clearing `/usr`'s read-only flag), `clone`
 * itself with namespace flags (not `unshare`, and not `clone3`, which the filter answers with
 * `ENOSYS`), and a pidfd of the host process at the other end of the command's stdout, which is
 * a unix socket (Node's pipes are socket pairs): `SO_PEERPIDFD` gives one without naming a pid,
 * so the pid namespace does not hide it. With it, `pidfd_getfd` (a host descriptor), the
 * namespace ioctls (the host's network and mount namespaces) and `pidfd_send_signal` must fail.
 * Each works unsandboxed (as root: the root-only controls are skipped elsewhere).
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";
import { compileProbes } from "./support/syscall-probes.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");
const isRoot = process.getuid?.() === 0;

describe.skipIf(bubblewrap.missing || cc.missing)(
  bubblewrap.label(cc.label("escape attempts: mounts, namespaces and processes by descriptor")),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
      compileProbes(path.join(ground.workspace, "probes"));
    }, 60_000);
    afterAll(async () => ground.dispose());
    const probe = async (scope: "workspace" | "local" | "unrestricted", command: string) =>
      (await sh(attackRun(ground.workspace, scope), `./probes ${command}`)).stdout;

    escapeAttempt("privileges", "the new mount API: fsopen, open_tree of /usr, mount_setattr clearing read-only", async () => {
      for (const scope of ["workspace", "local"] as const)
        expect(await probe(scope, "mount-api /usr")).toBe("fsopen:errno=1\nopen-tree:errno=1\nmount-setattr:errno=1");
      // Control: a new tmpfs context and a detached copy of a tree (both freed on exit).
      if (isRoot) expect(await probe("unrestricted", "mount-api /usr")).toMatch(/^fsopen:ok\nopen-tree:ok\n/);
    });

    escapeAttempt("privileges", "clone with CLONE_NEWUSER and CLONE_NEWNS (not unshare)", async () => {
      for (const scope of ["workspace", "local"] as const) {
        const lines = (await probe(scope, "clone-namespaces")).split("\n");
        // No user namespaces left to make (ENOSPC) or no capability (EPERM).
        expect(lines).toHaveLength(2);
        expect(lines[0]).toMatch(/^clone-newuser:errno=(28|1)$/);
        expect(lines[1]).toBe("clone-newns:errno=1");
      }
      if (isRoot) expect(await probe("unrestricted", "clone-namespaces")).toBe("clone-newuser:ok\nclone-newns:ok");
    });

    escapeAttempt(
      "processes",
      "a pidfd of the host process through stdout's peer (SO_PEERPIDFD): descriptors, namespaces, signals",
      async () => {
        const unsandboxed = await probe("unrestricted", "peer-pidfd");
        if (unsandboxed === "peer-pidfd:errno=92" || unsandboxed === "peer-pidfd:errno=22") return; // a kernel before 6.5: no such option
        for (const scope of ["workspace", "local"] as const)
          expect(await probe(scope, "peer-pidfd")).toBe(
            // The pidfd itself is granted (the kernel's), and it opens nothing: EPERM, EACCES, EINVAL.
            "peer-pidfd:ok\npidfd-getfd:errno=1\npidfd-net-namespace:errno=13\npidfd-mnt-namespace:errno=13\npidfd-signal:errno=22",
          );
        // Control: the same host process's descriptor, namespaces and a signal 0 unsandboxed.
        if (isRoot)
          expect(unsandboxed).toBe(
            "peer-pidfd:ok\npidfd-getfd:ok\npidfd-net-namespace:ok\npidfd-mnt-namespace:ok\npidfd-signal:ok",
          );
      },
    );
  },
);
