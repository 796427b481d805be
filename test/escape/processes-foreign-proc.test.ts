/**
 * A host whose `/proc` is another pid namespace's (a container given its host's `/proc`): bwrap
 * reports the sandbox's pid in the host process's namespace, which names another process in that
 * `/proc`, or none, so the check before the command looked at the wrong process; it waited until
 * the command's timeout, or refused with a plain error that named nothing the host could fix. Now
 * the spawn refuses at once with `sandbox_unavailable` (`reason: "foreign_proc"`). Control: the
 * same host process with its own `/proc` runs the command.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const HOST = path.join(import.meta.dirname, "support", "foreign-proc-host.ts");

function host(workspace: string, foreignProc: boolean): Record<string, unknown> {
  const node = [process.execPath, "--import", "tsx", HOST, workspace];
  // A new user and pid namespace that keeps the outer /proc (bound with the whole tree).
  const argv = foreignProc ? ["/usr/bin/bwrap", "--unshare-user", "--unshare-pid", "--dev-bind", "/", "/", "--", ...node] : node;
  const out = execFileSync(argv[0] as string, argv.slice(1), { encoding: "utf8", timeout: 40_000 });
  return JSON.parse(out) as Record<string, unknown>;
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: a /proc of another pid namespace"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  escapeAttempt(
    "processes",
    "a host whose /proc is another pid namespace's: refused at once, saying why",
    async () => {
      const ground = await playground();
      grounds.push(ground);
      const outcome = host(ground.workspace, true);
      expect(outcome.pid).not.toBe(undefined);
      expect(outcome.code).toBe("sandbox_unavailable");
      expect(outcome.data).toEqual({ reason: "foreign_proc", path: "/proc/self" });
      expect(String(outcome.thrown)).toContain("not this process's pid namespace");
      expect(outcome.stdout).toBeUndefined();
      expect(outcome.ms as number).toBeLessThan(5_000);
    },
    60_000,
  );

  it("control: the same host with its own /proc runs the command", async () => {
    const ground = await playground();
    grounds.push(ground);
    const outcome = host(ground.workspace, false);
    expect(outcome.stdout).toBe("ran\n");
    expect(outcome.error).toBeUndefined();
  }, 60_000);
});
