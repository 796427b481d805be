/**
 * Escape attempts at resources: a model's command that tries to exhaust the host through the
 * bash tool (a fork bomb, a huge allocation), under scopes workspace and local. Each runs with
 * a limit asserted in force first (nothing may run away on a shared machine); each has its
 * positive control (the same kind of command under the limit runs).
 */
import { afterAll, beforeAll, describe, expect } from "vitest";
import type { ResourceLimits } from "../../src/tools/sandbox/resource-limits.js";
import { capability } from "../support/capabilities.js";
import { forksRefused } from "../support/command-groups.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const cgroups = capability("cgroups");
const MiB = 1024 * 1024;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: resources"), () => {
  describe.skipIf(cgroups.missing)(cgroups.label("with per-command cgroups"), () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
    });
    afterAll(async () => ground.dispose());
    const run = (scope: "workspace" | "local", limits: ResourceLimits) =>
      attackRun(ground.workspace, scope, {
        bash: {
          limits,
          // Never start the attack without its limit.
          onLimitsUnavailable: (status) => {
            throw new Error(`limits not enforced: ${status.reason}`);
          },
        },
      });

    /**
     * The bomb, ended by a 1 s timeout, while the host watches the command's group: whenever the
     * group refused a fork, the status must say the limit was reached. On a loaded machine bwrap's
     * start and the first 64 forks can take more than the second (stop 47, load 17): that attempt
     * ends as a plain timeout (what happened, asserted so) and the bomb runs again, up to 5 times.
     */
    const bombUntilRefused = async (scope: "workspace" | "local") => {
      for (let attempt = 1; ; attempt++) {
        let refused = false;
        const watch = setInterval(() => {
          if (forksRefused() > 0) refused = true;
        }, 10);
        const bomb = await sh(run(scope, { maxProcesses: 64 }), ":(){ :|:& };:; sleep 30", { timeout_seconds: 1 }).finally(() =>
          clearInterval(watch),
        );
        const reported = bomb.status.includes("process limit reached");
        if (refused) expect(reported, bomb.status).toBe(true);
        if (reported || attempt === 5) return bomb;
        expect(bomb.status).toBe("timed out after 1 s (killed)");
      }
    };

    escapeAttempt("resources", "exhaust the host's process table with a fork bomb (workspace)", async () => {
      const bomb = await bombUntilRefused("workspace");
      expect(bomb.status).toMatch(/^timed out after 1 s \(killed\); process limit reached \(64 /);
      const control = await sh(
        run("workspace", { maxProcesses: 64 }),
        "for i in $(seq 50); do sleep 5 & done; jobs -p | wc -l; kill $(jobs -p)",
      );
      expect(control.stdout).toBe("50");
      expect(control.status).toBe("exit code 0");
    });

    escapeAttempt("resources", "exhaust the host's process table with a fork bomb (local)", async () => {
      const bomb = await bombUntilRefused("local");
      expect(bomb.status).toContain("process limit reached (64 ");
      const control = await sh(
        run("local", { maxProcesses: 64 }),
        "for i in $(seq 50); do sleep 5 & done; jobs -p | wc -l; kill $(jobs -p)",
      );
      expect(control.stdout).toBe("50");
    });

    escapeAttempt("resources", "fill the sandbox's private /tmp (a tmpfs: host memory, not disk) past the limit", async () => {
      // bwrap's --tmpfs has no size of its own (half the host's memory); its pages are charged
      // to the command's memory group, and the tmpfs goes with the command's mount namespace.
      const fill = (megabytes: number) => `head -c ${megabytes}M /dev/zero > /tmp/fill; echo rc=$?; stat -c %s /tmp/fill`;
      const killed = await sh(run("workspace", { maxMemoryBytes: 128 * MiB }), fill(300));
      expect(killed.status).toContain("memory limit reached (128 MiB)");
      expect(killed.stdout).toBe("");
      const control = await sh(run("workspace", { maxMemoryBytes: 128 * MiB }), fill(64));
      expect(control.stdout).toBe(`rc=0\n${64 * MiB}`);
      // The next command starts with an empty /tmp: nothing stays charged to the host.
      expect(
        (await sh(run("workspace", { maxMemoryBytes: 128 * MiB }), "test -e /tmp/fill && echo left || echo gone")).stdout,
      ).toBe("gone");
    });

    escapeAttempt("resources", "exhaust the host's memory with one allocation (workspace and local)", async () => {
      const allocate = (megabytes: number) =>
        `perl -e 'my $x = ""; vec($x, ${megabytes} * 1024 * 1024 - 1, 8) = 1; print length $x'`;
      for (const scope of ["workspace", "local"] as const) {
        const killed = await sh(run(scope, { maxMemoryBytes: 128 * MiB }), allocate(300));
        expect(killed.status).toContain("memory limit reached (128 MiB)");
        expect(killed.stdout).toBe("");
        const control = await sh(run(scope, { maxMemoryBytes: 128 * MiB }), allocate(64));
        expect(control.stdout).toBe(String(64 * MiB));
        expect(control.status).toBe("exit code 0");
      }
    });
  });
});
