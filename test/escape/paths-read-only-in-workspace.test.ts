/**
 * A `readOnlyPaths` entry inside the workspace (stop 42 review): bwrap bound it read-only before
 * the workspace's read-write bind, which then covered it, so a command wrote it. It is now bound
 * last (over the workspace and the git protection) and the mount-table check requires it to be
 * the topmost mount at its path, read-only.
 *
 * Controls: the same command writes the workspace beside it, reads the entry's files, and an
 * entry outside the workspace stays read-only as before.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, quote, spawnIn } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: readOnlyPaths inside the workspace"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  escapeAttempt(
    "paths",
    "a readOnlyPaths directory inside the workspace written by a command (the workspace's writable bind covered it)",
    async () => {
      const vendor = path.join(ground.workspace, "vendor");
      mkdirSync(path.join(vendor, "lib"), { recursive: true });
      writeFileSync(path.join(vendor, "lib", "a.txt"), "kept\n");
      const toolchain = path.join(ground.outside, "toolchain");
      mkdirSync(toolchain);
      writeFileSync(path.join(toolchain, "t.txt"), "tool\n");
      const sandbox = new BubblewrapSandbox({
        scope: "workspace",
        workspace: ground.workspace,
        readOnlyPaths: [vendor, toolchain],
      });
      const attempt = (target: string) => `({ printf x > ${quote(target)}; } 2>/dev/null && echo written || echo refused)`;
      const output = await spawnIn(
        sandbox,
        [
          attempt(path.join(vendor, "new.txt")),
          attempt(path.join(vendor, "lib", "a.txt")),
          "(mv vendor/lib vendor/lib2 2>/dev/null && echo moved || echo not-moved)",
          attempt(path.join(toolchain, "new.txt")),
          // Controls: the workspace beside it is writable, the entries readable.
          attempt(path.join(ground.workspace, "beside.txt")),
          `cat vendor/lib/a.txt ${quote(path.join(toolchain, "t.txt"))}`,
        ].join("; "),
      );
      expect(output).toBe("refused\nrefused\nnot-moved\nrefused\nwritten\nkept\ntool\n");
      expect(existsSync(path.join(vendor, "new.txt"))).toBe(false);
      expect(existsSync(path.join(ground.workspace, "beside.txt"))).toBe(true);
    },
    60_000,
  );
});
