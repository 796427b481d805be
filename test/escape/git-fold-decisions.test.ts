/**
 * Names the sandbox's git protection compares folded (src/tools/sandbox/git-names.ts), at the
 * level of each decision (no folding file system can be mounted here; see
 * git-fold-gitlinks.test.ts): the `atc-quarantine-` prefix of what earlier commands' ends moved
 * aside (bound read-only at spawn) in any spelling, and `objects/info` under look-alikes of
 * either name, recorded at spawn and bound read-only. Positive controls: ordinary names.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { gitProtection, isQuarantineName } from "../../src/tools/sandbox/git-protection.js";

describe("folded names of the sandbox's git protection", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  it("takes the quarantine prefix in any spelling, and no ordinary name", () => {
    for (const name of [
      "atc-quarantine-config-20260101T000000Z",
      "ATC-QUARANTINE-config-20260101T000000Z",
      "Atc-Quarantine-hooks",
      "atc-quarantine\u200c-hooks",
      "ａｔｃ-quarantine-hooks",
    ]) {
      expect(isQuarantineName(name), JSON.stringify(name)).toBe(true);
    }
    for (const name of ["atc-quarantine", "atc-quarantinex-config", "atc_quarantine-config", "config", "notes.TXT", ""]) {
      expect(isQuarantineName(name), JSON.stringify(name)).toBe(false);
    }
  });

  it("binds objects/info look-alikes read-only at spawn and records every objects/info", () => {
    const root = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-fold-decisions-")));
    made.push(root);
    const gitDirectory = path.join(root, ".git");
    for (const directory of ["objects/info", "objects/INFO", "objects/pack", "OBJECTS/info", "Objects/notes", "refs/heads"]) {
      mkdirSync(path.join(gitDirectory, directory), { recursive: true });
    }
    writeFileSync(path.join(gitDirectory, "HEAD"), "ref: refs/heads/main\n");
    writeFileSync(path.join(gitDirectory, "ATC-QUARANTINE-config-x"), "[core]\n");
    const protection = gitProtection(root);
    const bound = (target: string) => {
      const at = protection.args.indexOf(target);
      return at > 0 && protection.args[at - 1] === "--ro-bind" && protection.args[at + 1] === target;
    };
    expect(protection.lookAlikes.map((entry) => path.relative(gitDirectory, entry)).sort()).toEqual([
      "OBJECTS/info",
      "objects/INFO",
    ]);
    for (const lookAlike of ["OBJECTS/info", "objects/INFO", "objects/info", "ATC-QUARANTINE-config-x"]) {
      expect(bound(path.join(gitDirectory, lookAlike)), lookAlike).toBe(true);
    }
    // Three objects/info (two objects directories) recorded; the ordinary names are not bound.
    expect(new Set(protection.objectInfos.filter((key) => key.startsWith(`${gitDirectory}\u0000`))).size).toBe(3);
    expect(bound(path.join(gitDirectory, "objects/pack"))).toBe(false);
    expect(bound(path.join(gitDirectory, "Objects/notes"))).toBe(false);
  });
});
