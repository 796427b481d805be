/**
 * Red team round 33: apply_patch given what a git-format diff can say besides hunks. A `diff --git`
 * section's `rename from`/`rename to` lines name paths of their own, apart from the `---`/`+++`
 * lines a check may look at; git quotes a path with C escapes and octal bytes (`"\056git"` is
 * `.git`, `"\300\256"` an overlong UTF-8 `.`); `new file mode 120000` or `new mode 120000` makes
 * the file a symbolic link whose target is the hunk's text; and NFKC folds `‥` (two dot leader),
 * `．．` (fullwidth full stops) and `․․` (one dot leaders) to `..`. Held when, under sandbox
 * "workspace": every rename naming a path out of the workspace (relative, absolute, octal-quoted)
 * is refused `path_outside_workspace`, an octal `.git` is refused as `.git`, no symbolic link is
 * made and the outside directory is unchanged, and the dot look-alikes are names inside the
 * workspace. Controls: unrestricted, the same renames move the files out and in, and an octal
 * spelling of an ordinary name is decoded (`"\155ain.txt"` is `main.txt`); git itself applies the
 * symbolic-link patch as a link to the outside file.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { codeOf, fileToolsRun } from "./support/file-tool-attack.js";

const gitCapability = capability("git");

/** The outside file's text. */
const TOKEN = "r33-outside-token";

let root: string;
let workspace: string;
let outside: string;

/** A diff's text from its lines. */
const diff = (...lines: readonly string[]): string => `${lines.join("\n")}\n`;

/** A rename section of `from` to `to`, each spelled as given (quoted or not). */
const rename = (from: string, to: string): string =>
  diff(`diff --git a/${from} b/${to}`, "similarity index 100%", `rename from ${from}`, `rename to ${to}`);

/** A new file section whose paths are spelled `spelled` (with git's quotes when it has them). */
function addQuoted(spelled: string, text: string, mode = "100644"): string {
  const prefixed = (prefix: string) => (spelled.startsWith('"') ? `"${prefix}/${spelled.slice(1)}` : `${prefix}/${spelled}`);
  return diff(
    `diff --git ${prefixed("a")} ${prefixed("b")}`,
    `new file mode ${mode}`,
    "--- /dev/null",
    `+++ ${prefixed("b")}`,
    "@@ -0,0 +1 @@",
    `+${text}`,
  );
}

/** Every entry under `directory`, as relative paths, sorted. */
function tree(directory: string): string[] {
  return (readdirSync(directory, { recursive: true }) as string[]).sort();
}

describe("escape attempts: round 33, git-format headers in apply_patch", () => {
  beforeEach(async () => {
    root = await realpath(await mkdtemp(path.join(tmpdir(), "atc-escape-r33-patch-")));
    workspace = path.join(root, "ws");
    outside = path.join(root, "outside");
    mkdirSync(workspace);
    mkdirSync(outside);
    writeFileSync(path.join(outside, "secret.txt"), `${TOKEN}\n`);
    writeFileSync(path.join(workspace, "a.txt"), "alpha\n");
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  escapeAttempt(
    "paths",
    "rename from/to naming a path out of the workspace: relative, absolute, octal-quoted, into and out of it",
    async () => {
      const run = fileToolsRun(workspace, "workspace");
      const attempts = [
        rename("a.txt", "../outside/out.txt"),
        rename("a.txt", `${outside}/out.txt`),
        rename("a.txt", '"\\056\\056/outside/out.txt"'),
        rename("../outside/secret.txt", "stolen.txt"),
        rename(`${outside}/secret.txt`, "stolen.txt"),
        rename('"\\056\\056/outside/secret.txt"', "stolen.txt"),
        // The `---`/`+++` lines stay inside; only the rename lines leave.
        diff(
          "diff --git a/a.txt b/in.txt",
          "similarity index 90%",
          "rename from a.txt",
          "rename to ../outside/out.txt",
          "--- a/a.txt",
          "+++ b/in.txt",
          "@@ -1 +1 @@",
          "-alpha",
          "+beta",
        ),
      ];
      const codes = [];
      for (const patch of attempts) codes.push(codeOf(await run.call("apply_patch", { patch })));
      expect(codes).toEqual(Array(attempts.length).fill("path_outside_workspace"));
      expect(tree(outside)).toEqual(["secret.txt"]);
      expect(tree(workspace)).toEqual(["a.txt"]);
      expect(readFileSync(path.join(workspace, "a.txt"), "utf8")).toBe("alpha\n");
      // Control: unrestricted, the rename lines are what moves the files, out and then in.
      const open = fileToolsRun(workspace, "unrestricted");
      expect(codeOf(await open.call("apply_patch", { patch: rename("a.txt", '"\\056\\056/outside/out.txt"') }))).toBe("ok");
      expect(codeOf(await open.call("apply_patch", { patch: rename("../outside/secret.txt", "stolen.txt") }))).toBe("ok");
      expect(tree(outside)).toEqual(["out.txt"]);
      expect(readFileSync(path.join(workspace, "stolen.txt"), "utf8")).toBe(`${TOKEN}\n`);
    },
  );

  escapeAttempt("git-metadata", "octal-quoted .git in a git diff's paths: a new hook and a rename onto .git/config", async () => {
    mkdirSync(path.join(workspace, ".git", "hooks"), { recursive: true });
    writeFileSync(path.join(workspace, ".git", "config"), "[core]\n");
    const run = fileToolsRun(workspace, "workspace");
    const codes = [
      codeOf(await run.call("apply_patch", { patch: addQuoted('"\\056git/hooks/pre-commit"', "#!/bin/sh", "100755") })),
      codeOf(
        await run.call("apply_patch", { patch: addQuoted('"\\056\\107\\111\\124/hooks/post-checkout"', "#!/bin/sh", "100755") }),
      ),
      codeOf(await run.call("apply_patch", { patch: rename("a.txt", '"\\056git/config"') })),
      codeOf(await run.call("apply_patch", { patch: rename("a.txt", '"sub/\\056\\056/\\056git/config"') })),
    ];
    expect(codes).toEqual(Array(4).fill("git_metadata_refused"));
    expect(readdirSync(path.join(workspace, ".git", "hooks"))).toEqual([]);
    expect(readFileSync(path.join(workspace, ".git", "config"), "utf8")).toBe("[core]\n");
    // Control: the octal spelling is decoded, as git writes it: "\155ain.txt" is main.txt.
    expect(codeOf(await run.call("apply_patch", { patch: addQuoted('"\\155ain.txt"', "main") }))).toBe("ok");
    expect(readFileSync(path.join(workspace, "main.txt"), "utf8")).toBe("main\n");
  });

  escapeAttempt(
    "paths",
    "a symbolic-link patch (new file mode 120000, new mode 120000) whose target is an outside file",
    async () => {
      const target = path.join(outside, "secret.txt");
      const linkPatch = diff(
        "diff --git a/link b/link",
        "new file mode 120000",
        "--- /dev/null",
        "+++ b/link",
        "@@ -0,0 +1 @@",
        `+${target}`,
        "\\ No newline at end of file",
      );
      const modePatch = diff(
        "diff --git a/a.txt b/a.txt",
        "old mode 100644",
        "new mode 120000",
        "--- a/a.txt",
        "+++ b/a.txt",
        "@@ -1 +1 @@",
        "-alpha",
        `+${target}`,
        "\\ No newline at end of file",
      );
      const run = fileToolsRun(workspace, "workspace");
      await run.call("apply_patch", { patch: linkPatch });
      await run.call("apply_patch", { patch: modePatch });
      // Whatever the tool made of them, neither is a link, and reading them gives no secret.
      for (const name of ["link", "a.txt"]) {
        const file = path.join(workspace, name);
        if (existsSync(file)) expect(lstatSync(file).isSymbolicLink(), name).toBe(false);
        const read = await run.call("read", { path: name });
        expect(JSON.stringify(read), name).not.toContain(TOKEN);
      }
      expect(tree(outside)).toEqual(["secret.txt"]);
      // Control: git applies the same patch as a link to the outside file, which reads the secret.
      if (gitCapability.missing) return;
      const scratch = path.join(root, "git-apply");
      mkdirSync(scratch);
      execFileSync("git", ["init", "-q"], { cwd: scratch });
      writeFileSync(path.join(scratch, "link.patch"), linkPatch);
      execFileSync("git", ["apply", "link.patch"], { cwd: scratch });
      expect(readlinkSync(path.join(scratch, "link"))).toBe(target);
      expect(readFileSync(path.join(scratch, "link"), "utf8")).toBe(`${TOKEN}\n`);
    },
  );

  escapeAttempt(
    "paths",
    "paths whose NFKC fold or overlong UTF-8 is `..`: two dot leader, fullwidth and one dot leader stops, octal \\300\\256",
    async () => {
      const run = fileToolsRun(workspace, "workspace");
      const spellings = ["\u2025", "\uff0e\uff0e", "\u2024\u2024"];
      const codes = [];
      for (const [index, dots] of spellings.entries()) {
        codes.push(
          codeOf(
            await run.call("apply_patch", {
              patch: diff("--- /dev/null", `+++ b/${dots}/outside/u${index}.txt`, "@@ -0,0 +1 @@", "+u"),
            }),
          ),
        );
        codes.push(
          codeOf(
            await run.call("apply_patch", {
              patch: ["*** Begin Patch", `*** Add File: ${dots}/outside/c${index}.txt`, "+c", "*** End Patch"].join("\n"),
            }),
          ),
        );
        codes.push(codeOf(await run.call("write", { path: `${dots}/outside/w${index}.txt`, content: "w" })));
      }
      codes.push(codeOf(await run.call("apply_patch", { patch: addQuoted('"\\300\\256\\300\\256/outside/o.txt"', "o") })));
      // Each was made, as a name inside the workspace: the look-alikes are directories of their own.
      expect(codes).toEqual(Array(10).fill("ok"));
      expect(tree(outside)).toEqual(["secret.txt"]);
      for (const dots of spellings) expect(readdirSync(path.join(workspace, dots, "outside")).length, dots).toBe(3);
      // Control: unrestricted, `..` itself writes into the outside directory.
      const open = fileToolsRun(workspace, "unrestricted");
      expect(
        codeOf(await open.call("apply_patch", { patch: diff("--- /dev/null", "+++ b/../outside/u.txt", "@@ -0,0 +1 @@", "+u") })),
      ).toBe("ok");
      expect(tree(outside)).toEqual(["secret.txt", "u.txt"]);
    },
  );
});
