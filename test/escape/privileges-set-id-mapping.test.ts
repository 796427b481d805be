/**
 * A set-user-id file the host already put in the workspace (round 17's open finding): the
 * kernel clears set-id bits on `write()` and truncation, not on a store through a shared
 * writable mapping, and the sandbox user is the file's owner outside (root on a root host). A
 * command that rewrote such a file through `mmap(MAP_SHARED, PROT_WRITE)` left a set-user-id
 * program of its own making. The probe is compiled on the host and run inside the sandbox and,
 * as the control, unsandboxed, where the same store keeps the bit.
 */
import { readFileSync, statSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";
import { compileProbes } from "./support/syscall-probes.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");

describe.skipIf(bubblewrap.missing || cc.missing)(
  bubblewrap.label(cc.label("escape attempts: a set-id file of the workspace rewritten through a mapping")),
  () => {
    let ground: Playground;
    beforeEach(async () => {
      ground = await playground();
      compileProbes(path.join(ground.workspace, "probes"));
      await mkdir(path.join(ground.workspace, "bin", "deeper"), { recursive: true });
      for (const [name, mode] of [
        ["suid", 0o4755],
        ["bin/sgid", 0o2755],
        ["bin/deeper/suid", 0o4711],
        ["plain", 0o755],
      ] as const) {
        const file = path.join(ground.workspace, name);
        await writeFile(file, "hello world\n");
        await chmod(file, mode);
      }
    });
    afterEach(async () => ground.dispose());

    const contentOf = (name: string) => readFileSync(path.join(ground.workspace, name), "utf8");
    const modeOf = (name: string) => statSync(path.join(ground.workspace, name)).mode & 0o7777;

    escapeAttempt("privileges", "rewrite a set-user-id or set-group-id file through a shared writable mapping", async () => {
      const result = await sh(
        attackRun(ground.workspace, "workspace"),
        "for f in suid bin/sgid bin/deeper/suid plain; do ./probes mmap-write $f; done; rm -f suid; mv bin/sgid moved; echo done",
      );
      expect(result.stdout, result.text).toContain("done");
      for (const [name, mode] of [
        ["suid", 0o4755],
        ["bin/sgid", 0o2755],
        ["bin/deeper/suid", 0o4711],
      ] as const) {
        // Neither rewritten nor replaced: the host's file, bit and all.
        expect(contentOf(name), `${name}: ${result.text}`).toBe("hello world\n");
        expect(modeOf(name), name).toBe(mode);
      }
      // Positive control: an ordinary file of the workspace is written through a mapping as before.
      expect(contentOf("plain")).toBe("Xello world\n");
      // And the set-id files can still be read and run inside.
      const read = await sh(attackRun(ground.workspace, "workspace"), "cat suid bin/sgid");
      expect(read.stdout).toBe("hello world\nhello world");
    });

    it("control: unsandboxed, the same store rewrites the file and the set-user-id bit stays", async () => {
      const result = await sh(attackRun(ground.workspace, "unrestricted"), "./probes mmap-write suid");
      expect(result.stdout).toBe("mmap-write:ok");
      expect(contentOf("suid")).toBe("Xello world\n");
      expect(modeOf("suid")).toBe(0o4755);
    });
  },
);
