/**
 * Red team round 25: bash's `cwd` with a `..` after a link (scope `workspace`). `l` is a link to
 * a host directory whose sibling `secrets` exists: the kernel takes `l/../secrets` to the host's
 * `secrets`, the text to the workspace's. The tool resolves the text first (it never hands the
 * raw path to the kernel), so `l/..` runs in the workspace and `l/../secrets` is the workspace's
 * `secrets`: refused alike whether the host's exists, and run there once the workspace has one.
 * Control: unsandboxed, `cat l/../secrets/key.txt` (the kernel's resolution) reaches the host file.
 */
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = "atc-cwd-link-secret-41c9";

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: bash cwd after a link"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
    await mkdir(path.join(ground.outside, "inner"));
    await mkdir(path.join(ground.outside, "secrets"));
    await writeFile(path.join(ground.outside, "secrets", "key.txt"), `${SECRET}\n`);
    await symlink(path.join(ground.outside, "inner"), path.join(ground.workspace, "l"));
  });
  afterAll(async () => ground.dispose());

  escapeAttempt("paths", "bash with cwd `l/..` and `l/../<name>`, `l` a link to a host directory", async () => {
    const run = attackRun(ground.workspace, "workspace");
    expect((await sh(run, "pwd; ls", { cwd: "l/.." })).stdout).toBe(`${ground.workspace}\nl`);
    const present = await sh(run, "cat key.txt", { cwd: "l/../secrets" });
    const absent = await sh(run, "cat key.txt", { cwd: "l/../nothing-here" });
    expect(present.status).toBe("error:invalid_command");
    expect(present.text.replace("secrets", "X")).toBe(absent.text.replace("nothing-here", "X"));
    expect(present.text).not.toContain(SECRET);
    // Once the workspace has its own `secrets`, the call runs there, not in the host's.
    await mkdir(path.join(ground.workspace, "secrets"));
    await writeFile(path.join(ground.workspace, "secrets", "key.txt"), "workspace key\n");
    const inside = await sh(run, "pwd; cat key.txt", { cwd: "l/../secrets" });
    expect(inside.stdout).toBe(`${path.join(ground.workspace, "secrets")}\nworkspace key`);
    // Control: the kernel follows the link first and reaches the host directory (unsandboxed).
    const open = await sh(attackRun(ground.workspace, "unrestricted"), "cat l/../secrets/key.txt");
    expect(open.stdout).toContain(SECRET);
  });
});
