/**
 * Round 18 variants of classes that held before: a survivor that uses every trick at once (double
 * fork, new session, a subreaper, every signal ignored), a hard link of a host file's descriptor
 * the command opened itself, and a 1 TiB sparse file host tools then read. Each with its control.
 */
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 18 variants"), () => {
  let ground: Playground;
  beforeEach(async () => {
    ground = await playground();
  });
  afterEach(async () => {
    await ground.dispose();
  });

  /** A process that double-forks into a new session, becomes a subreaper, ignores every signal, and writes `late` after `delay` s. */
  const survivor = (late: string, delay: number) =>
    `setsid perl -e '$SIG{$_} = "IGNORE" for keys %SIG; syscall(157, 36, 1, 0, 0, 0); exit if fork; ` +
    `exit if fork; $SIG{$_} = "IGNORE" for keys %SIG; close STDIN; close STDOUT; close STDERR; select(undef, undef, undef, ${delay}); ` +
    `open my $f, ">", ${JSON.stringify(late)}; print $f "late"' </dev/null >/dev/null 2>&1 & `;

  escapeAttempt(
    "processes",
    "double fork + setsid + PR_SET_CHILD_SUBREAPER + every signal ignored: nothing outlives the call",
    async () => {
      const late = path.join(ground.workspace, "late");
      const result = await sh(attackRun(ground.workspace, "workspace"), `${survivor(late, 0.5)}echo started`);
      expect(result.stdout.trim()).toBe("started");
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(existsSync(late), "a process outlived its call").toBe(false);
      // Control: the same survivor writes while its call still runs.
      const control = await sh(attackRun(ground.workspace, "workspace"), `${survivor(late, 0.5)}sleep 1.5; cat ${quote(late)}`);
      expect(control.stdout.trim()).toBe("late");
    },
    20_000,
  );

  escapeAttempt(
    "paths",
    "ln -L of a host file's read-only descriptor the command opened (/etc/passwd) into the workspace",
    async () => {
      const attack = "exec 3</etc/passwd; ln -L /proc/self/fd/3 linked 2>&1; stat -c %h linked 2>&1";
      const denied = await sh(attackRun(ground.workspace, "workspace"), attack);
      expect(existsSync(path.join(ground.workspace, "linked")), denied.text).toBe(false);
      // Control: unsandboxed (root, same file system) the link is made to the host's file.
      const control = await sh(attackRun(ground.workspace, "unrestricted"), attack);
      expect(existsSync(path.join(ground.workspace, "linked")), control.text).toBe(true);
      expect(await readFile(path.join(ground.workspace, "linked"), "utf8")).toBe(await readFile("/etc/passwd", "utf8"));
    },
    20_000,
  );

  escapeAttempt(
    "resources",
    "a 1 TiB sparse file host tools look at afterwards (grep, ls): each answers within 5 s",
    async () => {
      // `read` of the same file: the next attempt.
      const run = attackRun(ground.workspace, "workspace");
      const made = await sh(run, "truncate -s 1T huge && printf 'needle\\n' > small && stat -c %s huge");
      // Control: the file is there and 1 TiB long.
      expect(made.stdout.trim()).toBe(String(2 ** 40));
      for (const [tool, input] of [
        ["grep", { pattern: "needle" }],
        ["ls", { path: "." }],
      ] as const) {
        const started = performance.now();
        const result = await run.call(tool, input);
        expect(performance.now() - started, `${tool}: ${JSON.stringify(result).slice(0, 300)}`).toBeLessThan(5_000);
        if (tool === "grep") expect(String(result.ok ? result.output : result.error.message)).toContain("small");
      }
    },
    40_000,
  );

  escapeAttempt(
    "resources",
    "read of a 1 TiB sparse file the command made: binary_file within 5 s, not a hash of every byte",
    async () => {
      const run = attackRun(ground.workspace, "workspace");
      const made = await sh(run, "truncate -s 1T huge && stat -c %s huge");
      // Control: the file is there and 1 TiB long.
      expect(made.stdout.trim()).toBe(String(2 ** 40));
      const started = performance.now();
      const result = await run.call("read", { path: "huge" });
      expect(performance.now() - started).toBeLessThan(5_000);
      expect(result.ok ? "ok" : result.error.code).toBe("binary_file");
    },
    15_000,
  );
});
