/**
 * Escape attempts through inode flags and links that leave the host a file it cannot remove or a
 * program it would run with raised rights: `chattr +i` / `+a` on a workspace file (the sandbox
 * user is uid 0 outside on a root host; an immutable file in the workspace survives the host's
 * clean-up and every later write) and a hard link of a set-user-id system program into the
 * workspace. Controls: unsandboxed as root, each works (root-only, as the flags need
 * `CAP_LINUX_IMMUTABLE`; the link needs the same file system, checked here).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const isRoot = process.getuid?.() === 0;
const hasChattr = spawnSync("chattr", ["--help"], { stdio: "ignore" }).error === undefined;
const SET_UID_PROGRAM = "/usr/bin/su";

/** The inode flags `lsattr` shows for `file` (e.g. `----i---------e-------`). */
function flags(file: string): string {
  return execFileSync("lsattr", ["-d", file], { encoding: "utf8" }).split(" ")[0] ?? "";
}

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: inode flags and set-id links"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => {
    for (const name of ["flag-i", "flag-a"]) spawnSync("chattr", ["-i", "-a", path.join(ground.workspace, name)]);
    await ground.dispose();
  });

  for (const [flag, letter] of [
    ["+i", "i"],
    ["+a", "a"],
  ] as const) {
    escapeAttempt("privileges", `chattr ${flag} makes a workspace file the host cannot remove`, async () => {
      const name = `flag-${letter}`;
      const file = path.join(ground.workspace, name);
      const attempt = await sh(
        attackRun(ground.workspace, "workspace"),
        `echo data > ${name} && chattr ${flag} ${name}; lsattr -d ${name}`,
      );
      expect(attempt.stdout, attempt.text).toContain(name);
      if (hasChattr) expect(flags(file)).not.toContain(letter);
      rmSync(file);
      expect(existsSync(file)).toBe(false);
      // Control: the host as root sets it (and then cannot remove the file until it clears it).
      if (!isRoot || !hasChattr) return;
      writeFileSync(file, "data\n");
      execFileSync("chattr", [flag, file]);
      expect(flags(file)).toContain(letter);
      expect(() => rmSync(file)).toThrow();
      execFileSync("chattr", [`-${letter}`, file]);
      rmSync(file);
    });
  }

  escapeAttempt("privileges", `a hard link of the set-user-id ${SET_UID_PROGRAM} is made in the workspace`, async () => {
    if (!existsSync(SET_UID_PROGRAM)) return;
    const attempt = await sh(attackRun(ground.workspace, "workspace"), `ln ${SET_UID_PROGRAM} su-link; ls -l su-link 2>&1`);
    expect(existsSync(path.join(ground.workspace, "su-link")), attempt.text).toBe(false);
    // Control: on this file system, the host as root links it (a set-user-id file a later
    // `chmod` or the host's own tools would keep).
    if (!isRoot || statSync(SET_UID_PROGRAM).dev !== statSync(ground.outside).dev) return;
    const control = path.join(ground.outside, "su-link");
    execFileSync("ln", [SET_UID_PROGRAM, control]);
    expect(statSync(control).mode & 0o4000).toBe(0o4000);
    rmSync(control);
  });
});
