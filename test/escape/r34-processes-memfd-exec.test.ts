/**
 * Red team round 34: a program run from memory. A command copies a binary (`/bin/cat`) into an
 * anonymous `memfd_create` file and executes it through its descriptor (`fexecve`, which glibc
 * makes `execveat(fd, "", AT_EMPTY_PATH)`): no path names the program, so a confinement that
 * keyed on executable paths, or one applied by a wrapper that a fresh `execve` leaves behind,
 * would not hold it. Held when the program run this way is confined like any other: under
 * `workspace` it cannot read the outside secret, and under `workspace` and `local` its
 * `/proc/self/status` shows the sandbox user, no capabilities, `no_new_privs` and the seccomp
 * filter. Control: unrestricted, the same memfd program reads the secret, and in every scope its
 * maps show it ran from the memfd.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = `r34-memfd-secret-${process.pid}`;

/** Python (the system's, not a PATH shim) that runs `/bin/cat` from a memfd on `files`. */
function memfdCat(files: readonly string[]): string {
  const script = [
    "import os",
    "data = open('/bin/cat', 'rb').read()",
    "fd = os.memfd_create('r34mem', 0)",
    "os.write(fd, data)",
    `os.execve(fd, ['cat', '/proc/self/maps', '/proc/self/status', ${files.map((file) => JSON.stringify(file)).join(", ")}], {})`,
  ].join("\n");
  return `/usr/bin/python3 -c ${quote(script)} 2>&1`;
}

/** A field of a /proc/<pid>/status text. */
function field(status: string, name: string): string {
  return new RegExp(`^${name}:\\s*(.*)$`, "m").exec(status)?.[1]?.trim() ?? "";
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 34, a program executed from a memfd"), () => {
  let ground: Playground;
  let secretFile: string;
  beforeAll(async () => {
    ground = await playground();
    secretFile = path.join(ground.outside, "secret-r34.txt");
    await writeFile(secretFile, `${SECRET}\n`);
  });
  afterAll(async () => {
    await ground.dispose();
  });

  escapeAttempt(
    "processes",
    "memfd_create + fexecve (execveat AT_EMPTY_PATH) of a copy of cat: read an outside file, shed the user, capabilities, no_new_privs or seccomp",
    async () => {
      for (const scope of ["workspace", "local"] as const) {
        const ran = await sh(attackRun(ground.workspace, scope), memfdCat([secretFile]));
        // It did run from the memfd (the mechanism works inside the sandbox too).
        expect(ran.stdout, scope).toContain("/memfd:r34mem");
        expect(field(ran.stdout, "Uid").split(/\s+/), scope).toEqual(["65534", "65534", "65534", "65534"]);
        expect(field(ran.stdout, "CapEff"), scope).toBe("0000000000000000");
        expect(field(ran.stdout, "CapPrm"), scope).toBe("0000000000000000");
        expect(field(ran.stdout, "NoNewPrivs"), scope).toBe("1");
        expect(field(ran.stdout, "Seccomp"), scope).toBe("2");
        if (scope === "workspace") expect(ran.stdout, scope).not.toContain(SECRET);
      }
      // Control: unrestricted, the memfd program reads the outside file with the host's identity.
      const open = await sh(attackRun(ground.workspace, "unrestricted"), memfdCat([secretFile]));
      expect(open.stdout).toContain("/memfd:r34mem");
      expect(open.stdout).toContain(SECRET);
      expect(field(open.stdout, "Seccomp")).toBe("0");
    },
    120_000,
  );
});
