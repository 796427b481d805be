/**
 * Red team round 29: a sandboxed command against what lives beside it. Three attempts not made
 * before: signal and inspect a host process found by a scan of /proc (not a pid the command was
 * told: round 13 tried `kill -0` of the host's own pid), write the user namespace maps (its own,
 * and a child namespace's, the route `newuidmap` takes) to become uid 0, and plant a key in the
 * user keyring (add_key: a key the host's user would then find; round 17 read the session keyring
 * with keyctl). Each runs under workspace and local; each control runs the same command
 * unrestricted, where it works (on this host, as root for the keyring and the maps).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const isRoot = process.getuid?.() === 0;
const confined = ["workspace", "local"] as const;

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: neighbours of the sandbox"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());
  const run = (scope: "workspace" | "local" | "unrestricted") => attackRun(ground.workspace, scope);

  escapeAttempt(
    "privileges",
    "kill -9 a host process found by a /proc scan, and read its working directory, root and environment (workspace, local)",
    async () => {
      const marker = `r29-neighbour-${process.pid}-${Date.now()}`;
      // A host process the command is not told about, in the outside directory, with a secret in
      // its environment; the scan looks for its marker in every /proc/<pid>/cmdline it can read.
      const neighbour = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)", marker], {
        cwd: ground.outside,
        env: { PATH: process.env.PATH ?? "", R29_NEIGHBOUR_SECRET: "neighbour-secret" },
        stdio: "ignore",
      });
      const exited = new Promise((resolve) => neighbour.once("exit", resolve));
      try {
        await new Promise((resolve) => neighbour.once("spawn", resolve));
        // The marker is joined at run time: written whole, the scan would find its own shell.
        const scan = [
          `head=${marker.slice(0, 8)}; tail=${marker.slice(8)}; marker=$head$tail`,
          "for p in /proc/[0-9]*; do pid=$(basename $p);",
          `  if tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q "$marker"; then`,
          "    echo found $pid; readlink $p/cwd; readlink $p/root; tr '\\0' '\\n' < $p/environ 2>/dev/null | grep R29_",
          "    kill -9 $pid && echo killed;",
          "  fi;",
          "done; echo scanned",
        ].join("\n");
        for (const scope of confined) {
          const denied = await sh(run(scope), scan);
          expect(denied.stdout, scope).toContain("scanned");
          expect(denied.stdout, scope).not.toContain("found");
          expect(denied.stdout, scope).not.toContain("killed");
          expect(denied.stdout + denied.stderr, scope).not.toContain(ground.outside);
          expect(denied.stdout + denied.stderr, scope).not.toContain("neighbour-secret");
        }
        expect(alive(neighbour)).toBe(true);
        // Control: unrestricted, the same scan finds it, reads where it runs and its secret, kills it.
        const control = await sh(run("unrestricted"), scan);
        expect(control.stdout).toContain(`found ${neighbour.pid}`);
        expect(control.stdout).toContain(ground.outside);
        expect(control.stdout).toContain("R29_NEIGHBOUR_SECRET=neighbour-secret");
        expect(control.stdout).toContain("killed");
        await exited;
        expect(neighbour.signalCode).toBe("SIGKILL");
      } finally {
        if (alive(neighbour)) neighbour.kill("SIGKILL");
        await exited;
      }
    },
    60_000,
  );

  escapeAttempt(
    "privileges",
    "write the user namespace maps (its own, setgroups, a child namespace's as newuidmap does) to become uid 0 (workspace, local)",
    async () => {
      const command = [
        // A child namespace whose map the command writes from outside it, its own uid as 0 inside (as
        // newuidmap does for a user's own uid, without the set-uid helper).
        "unshare -U sh -c 'sleep 1; echo child-uid $(id -u)' & child=$!; sleep 0.3",
        'echo "0 $(id -u) 1" > /proc/$child/uid_map 2>/dev/null && echo wrote-child-map',
        // Its own maps and setgroups: already written by bwrap (once only), and without capabilities.
        'echo "0 0 1" > /proc/self/uid_map 2>/dev/null && echo wrote-own-uid-map',
        "echo deny > /proc/self/setgroups 2>/dev/null && echo wrote-setgroups",
        'echo "0 0 1" > /proc/self/gid_map 2>/dev/null && echo wrote-own-gid-map',
        "wait; echo uid $(id -u)",
      ].join("\n");
      for (const scope of confined) {
        const denied = await sh(run(scope), command);
        expect(denied.stdout, scope).not.toContain("wrote");
        expect(denied.stdout, scope).not.toContain("child-uid 0");
        expect(denied.stdout, scope).toContain("uid 65534");
      }
      // Control: unrestricted (root here), the child namespace's map is written and it is uid 0 in it.
      if (isRoot) {
        const control = await sh(run("unrestricted"), command);
        expect(control.stdout).toContain("wrote-child-map");
        expect(control.stdout).toContain("child-uid 0");
      }
    },
    60_000,
  );

  escapeAttempt("privileges", "plant a key in the user keyring with add_key (workspace, local)", async () => {
    // add_key("user", description, payload, 6, KEY_SPEC_USER_KEYRING = -4); x86_64 nr 248. Where
    // it works the key is invalidated at once (keyctl KEYCTL_INVALIDATE = 21, nr 250).
    if (process.arch !== "x64") return;
    const command = [
      'perl -e \'my ($type, $description, $payload) = ("user", "r29-planted", "secret");',
      "$serial = syscall(248, $type, $description, $payload, 6, -4);",
      'if ($serial < 0) { print "denied:$!" } else { syscall(250, 21, $serial, 0, 0, 0); print "planted:$serial" }\'',
    ].join(" ");
    for (const scope of confined) expect((await sh(run(scope), command)).stdout, scope).toMatch(/^denied:/);
    expect((await sh(run("unrestricted"), command)).stdout).toMatch(/^planted:\d+$/);
  });
});
