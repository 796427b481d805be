import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { commandArguments, FILTERED_INIT_WAIT } from "./bubblewrap-arguments.js";

/** This host's pid 1 filter mode (`0` on a plain host; a container's init may run filtered). */
const hostInitFilter = /^Seccomp:\s*(\d)/m.exec(readFileSync("/proc/1/status", "utf8"))?.[1];

describe("the wait for a filtered sandbox init", () => {
  it.skipIf(hostInitFilter !== "0")(
    "does not run the command while pid 1 is unfiltered: exits 125 after about 5 s, saying why",
    () => {
      const started = performance.now();
      const result = spawnSync("/bin/sh", ["-c", FILTERED_INIT_WAIT, "sh", "/bin/echo", "ran"], {
        encoding: "utf8",
        timeout: 60_000,
      });
      expect(result.stdout).toBe("");
      expect(result.status).toBe(125);
      expect(result.stderr).toContain("the sandbox init is not under the seccomp filter; the command was not run");
      expect(performance.now() - started).toBeGreaterThan(4_000);
    },
    90_000,
  );

  it("runs the command with its arguments intact once the status it reads shows the filter", () => {
    // Control: the same script reading a status file that shows the filter (standing in for the
    // sandbox init's) execs the command at once, its arguments as given.
    const directory = mkdtempSync(path.join(tmpdir(), "atc-filtered-init-"));
    try {
      const status = path.join(directory, "status");
      writeFileSync(status, "Name:\tbwrap\nSeccomp:\t2\nSeccomp_filters:\t1\n");
      const script = FILTERED_INIT_WAIT.replace("/proc/1/status", status);
      const result = spawnSync("/bin/sh", ["-c", script, "sh", "/usr/bin/printf", "%s|", "a b", "-c", "$HOME"], {
        encoding: "utf8",
      });
      expect(result.status).toBe(0);
      expect(result.stdout).toBe("a b|-c|$HOME|");
      // The command reads the standard input it was given (not the status file) and holds the
      // descriptors it holds when run directly (none of the script's).
      const probe = ["/bin/sh", "-c", "cat; ls /proc/self/fd | sort -n | tr '\\n' ' '"];
      const input = "given input\n";
      const direct = spawnSync(probe[0] as string, probe.slice(1), { encoding: "utf8", input });
      const wrapped = spawnSync("/bin/sh", ["-c", script, "sh", ...probe], { encoding: "utf8", input });
      expect(direct.stdout.startsWith(input)).toBe(true);
      expect(wrapped.stdout).toBe(direct.stdout);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("is the command bwrap runs, before the command", () => {
    const tail = commandArguments("/w", "/usr/bin/env", ["x"]);
    expect(tail.slice(tail.indexOf("--") + 1)).toEqual(["/bin/sh", "-c", FILTERED_INIT_WAIT, "sh", "/usr/bin/env", "x"]);
  });
});
