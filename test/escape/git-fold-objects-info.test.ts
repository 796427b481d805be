/**
 * `objects/info` (its `alternates` makes git read another object store) under a look-alike of
 * `objects` or of `info` (`OBJECTS/info`, `objects/INFO`): on a case- or normalisation-folding
 * file system host git reads it as its own, and the sandbox compared the names as bytes. No
 * folding file system can be mounted here (see git-fold-gitlinks.test.ts), so these run on an
 * ordinary Linux file system and check what the sandbox does with the look-alike: one present at
 * spawn is read-only, one a command makes is moved aside, and so is an `objects/info` a command
 * makes in an `objects` it put in place of the original (the read-only mount of `objects/info`
 * moves with its renamed parent, so the new one was writable and host git reads it anywhere).
 * Positive controls: the repository's own `objects/info` and an ordinary name beside the
 * look-alike stay, and git keeps working.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { committedWorkspaces } from "./support/committed-workspaces.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit } from "./support/host-git.js";
import { attackRun, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

const movedAside = (directory: string, name: string) =>
  readdirSync(directory).some((entry) => entry.startsWith(`atc-quarantine-${name}-`));

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: look-alikes of objects/info"), () => {
  const workspace = committedWorkspaces();

  escapeAttempt("git-metadata", "an OBJECTS/info or objects/INFO a command makes is moved aside", async () => {
    const root = await workspace();
    const gitDirectory = path.join(root, ".git");
    const attack = [
      "mkdir -p .git/OBJECTS/info .git/objects/INFO .git/objects/notes",
      "echo /tmp/elsewhere/objects > .git/OBJECTS/info/alternates",
      "echo /tmp/elsewhere/objects > .git/objects/INFO/alternates",
      // Positive control: an ordinary name in the same directory.
      "echo note > .git/objects/notes/n",
      "echo planted",
    ].join(" && ");
    const result = await sh(attackRun(root, "workspace"), attack);
    expect(result.stdout, result.text).toContain("planted");
    expect(existsSync(path.join(gitDirectory, "OBJECTS", "info"))).toBe(false);
    expect(movedAside(path.join(gitDirectory, "OBJECTS"), "info")).toBe(true);
    expect(existsSync(path.join(gitDirectory, "objects", "INFO"))).toBe(false);
    expect(movedAside(path.join(gitDirectory, "objects"), "INFO")).toBe(true);
    expect(result.text).toContain(
      "[moved aside an objects/info that was not there when the command started: .git/OBJECTS/info ->",
    );
    // Positive control: the repository's own objects/info and the ordinary name stay; git works.
    expect(existsSync(path.join(gitDirectory, "objects", "info"))).toBe(true);
    expect(readFileSync(path.join(gitDirectory, "objects", "notes", "n"), "utf8")).toBe("note\n");
    expect(hostGit(root, ["log", "--format=%s"]).trim()).toBe("init");
  });

  escapeAttempt("git-metadata", "an OBJECTS/info present at spawn is read-only and stays", async () => {
    const root = await workspace();
    const gitDirectory = path.join(root, ".git");
    mkdirSync(path.join(gitDirectory, "OBJECTS", "info"), { recursive: true });
    writeFileSync(path.join(gitDirectory, "OBJECTS", "info", "README"), "the user's\n");
    mkdirSync(path.join(gitDirectory, "OBJECTS", "notes"));
    const run = attackRun(root, "workspace");
    const planted = await sh(run, "echo /tmp/elsewhere > .git/OBJECTS/info/alternates && echo planted");
    expect(planted.stdout, planted.text).not.toContain("planted");
    const moved = await sh(run, "mv .git/OBJECTS/info .git/OBJECTS/away && echo moved");
    expect(moved.stdout, moved.text).not.toContain("moved");
    expect(readdirSync(path.join(gitDirectory, "OBJECTS", "info"))).toEqual(["README"]);
    // Positive control: the ordinary name beside it is writable, and nothing present at spawn moved.
    const control = await sh(run, "echo note > .git/OBJECTS/notes/n && echo wrote");
    expect(control.stdout, control.text).toContain("wrote");
    expect(control.text).not.toContain("moved aside");
  });

  escapeAttempt("git-metadata", "an objects/info made in an objects put in place of the original is moved aside", async () => {
    const root = await workspace();
    const gitDirectory = path.join(root, ".git");
    const attack = [
      "mv .git/objects .git/objects-away",
      "mkdir -p .git/objects/info",
      'echo "$PWD/.git/objects-away" > .git/objects/info/alternates',
      "echo planted",
    ].join(" && ");
    const result = await sh(attackRun(root, "workspace"), attack);
    expect(result.stdout, result.text).toContain("planted");
    expect(existsSync(path.join(gitDirectory, "objects", "info"))).toBe(false);
    expect(movedAside(path.join(gitDirectory, "objects"), "info")).toBe(true);
    // Positive control: the original objects/info, moved with its objects, is left as it was.
    expect(existsSync(path.join(gitDirectory, "objects-away", "info"))).toBe(true);
  });
});
