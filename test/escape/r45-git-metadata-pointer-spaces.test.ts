/**
 * Red team round 45: pointer values read as git reads them. Git takes a `.git` file's path as
 * everything after `gitdir: ` with only trailing line breaks dropped, and an alternates entry as
 * its whole line; the walk after each command trimmed both (`String.prototype.trim`). A command
 * wrote `x/.git` as `gitdir: ../hostlink ` (a trailing space) beside a workspace link named
 * `hostlink ` to a host repository's `.git`: the walk judged `../hostlink` (missing, so inside)
 * and kept it, and the user's `git -C x log` read the host repository, `reset --hard` checked its
 * file out into the workspace. The same with a tab, with the space before the path (`gitdir:  h`,
 * git's ` h`), and with a new repository's alternates entry ending in a space or a carriage return.
 * And names that are not UTF-8 (`host<0xff>`), read as U+FFFD (a missing name) where git uses
 * the bytes. And pointers padded past the walk's read bound (64 KiB) with line breaks git drops: a `.git` file
 * `gitdir: ../hostlink` and a new worktree's `gitdir` naming a host directory were not judged at
 * all; the user's `git log` read the host repository and `git worktree repair` wrote the host
 * directory's `.git`.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit, hostGitOutput } from "./support/host-git.js";
import { playgroundBesideHostSecret } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The user's identity for the commit made on the host after the command. */
const USER = ["-c", "user.email=u@example.com", "-c", "user.name=U"];

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 45, pointer values with white space git keeps"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /**
     * `.git` files the command writes, each beside a workspace link whose name holds the white
     * space git keeps, leading to the host repository's `.git`: `space` (`gitdir: ../hostlink `),
     * `tab` (`gitdir: ../hostlink<tab>`), `leading` (`gitdir:  h`, git's ` h`, a link in the
     * directory itself), `padded` (`gitdir: ../hostlink` and 70,000 line breaks), `bytes`
     * (`gitdir: ../host<0xff>`, a name that is not UTF-8, read as U+FFFD before); and a worktree
     * git directory `.git/worktrees/evil` whose `gitdir` names a host directory's `.git`, padded
     * the same way, before the user's `git worktree repair`. `crlf` (control): `gitdir:
     * ../inner/.git` ended by CR LF, naming a repository the command made, which git reads the same
     * trimmed or not.
     */
    async function pointerAttempt(scope: "workspace" | "local") {
      const { ground, root, host, secret } = await playgroundBesideHostSecret(grounds, "r45-pointer");
      const hostDirectory = path.join(ground.outside, "hostdir");
      mkdirSync(hostDirectory);
      const padding = "head -c 70000 /dev/zero | tr '\\0' '\\n'";
      const before = hostGit(host, ["rev-parse", "main"]).trim();
      const link = quote(`${host}/.git`);
      const result = await sh(
        attackRun(root, scope),
        `ln -s ${link} 'hostlink ' && ln -s ${link} "$(printf 'hostlink\\t')" && ` +
          "mkdir space tab leading padded bytes crlf && printf 'gitdir: ../hostlink \\n' > space/.git && " +
          `ln -s ${link} "$(printf 'host\\377')" && printf 'gitdir: ../host\\377\\n' > bytes/.git && ` +
          "printf 'gitdir: ../hostlink\\t\\n' > tab/.git && " +
          `ln -s ${link} 'leading/ h' && printf 'gitdir:  h\\n' > leading/.git && ` +
          "git init -q -b main inner && git -C inner -c user.email=m@e -c user.name=M commit -q --allow-empty -m inner && " +
          "printf 'gitdir: ../inner/.git\\r\\n' > crlf/.git && " +
          `ln -s ${link} hostlink && { printf 'gitdir: ../hostlink'; ${padding}; } > padded/.git && ` +
          "mkdir -p .git/worktrees/evil && echo 'ref: refs/heads/main' > .git/worktrees/evil/HEAD && echo ../.. > .git/worktrees/evil/commondir && " +
          `{ printf %s ${quote(path.join(hostDirectory, ".git"))}; ${padding}; } > .git/worktrees/evil/gitdir && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      const spellings: Record<string, { log: string; read: boolean }> = {};
      for (const spelling of ["space", "tab", "leading", "padded", "bytes"]) {
        const directory = path.join(root, spelling);
        const log = hostGitOutput(directory, ["log", "--format=%s", "-1"]);
        hostGitOutput(directory, ["reset", "-q", "--hard"]);
        hostGitOutput(directory, [...USER, "commit", "-q", "--allow-empty", "-m", "user"]);
        const file = path.join(directory, "secret.txt");
        spellings[spelling] = {
          log,
          read: log.includes("secret") || (existsSync(file) && readFileSync(file, "utf8").includes(secret)),
        };
      }
      const moved = hostGit(host, ["rev-parse", "main"]).trim() !== before;
      const crlf = hostGitOutput(path.join(root, "crlf"), ["log", "--format=%s", "-1"]);
      const repair = hostGitOutput(root, ["worktree", "repair"]);
      const repaired = existsSync(path.join(hostDirectory, ".git"));
      return { spellings, moved, crlf, repair, repaired, text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "a .git file naming a workspace link through white space git keeps and a trim drops (gitdir: ../hostlink<space>, <tab>, two spaces before the path) or a name that is not UTF-8, or padded past the walk's read bound with line breaks git drops, and a worktree's gitdir so padded: the user's git log, reset and commit read and move the host repository, git worktree repair writes a host directory",
      async () => {
        const denied = await pointerAttempt("workspace");
        const escapes: string[] = [];
        for (const [spelling, { log, read }] of Object.entries(denied.spellings)) {
          if (read) escapes.push(`${spelling}: the user's log or reset read the host repository: ${log}`);
          if (!denied.text.includes(`[moved aside ${spelling}/.git`)) escapes.push(`${spelling}: not moved aside`);
        }
        if (denied.moved) escapes.push("the user's commit moved the host repository's branch");
        if (denied.repaired)
          escapes.push(`padded gitdir: the user's git worktree repair wrote the host directory's .git: ${denied.repair}`);
        if (!denied.text.includes("[moved aside .git/worktrees/evil/gitdir")) escapes.push("padded gitdir: not moved aside");
        expect(escapes, denied.text).toEqual([]);
        // Controls: the CR LF pointer to a repository inside is kept and works; under `local` (no
        // git protection) every spelling reads the host repository.
        expect(denied.text).not.toContain("[moved aside crlf/.git");
        expect(denied.crlf).toBe("inner\n");
        const control = await pointerAttempt("local");
        expect(
          Object.values(control.spellings).every(({ read }) => read) && control.moved && control.repaired,
          JSON.stringify(control.spellings),
        ).toBe(true);
      },
      60_000,
    );

    /**
     * A new repository whose alternates entry is `../../../dd<end>` (`<end>` a space or a
     * carriage return, which git keeps, or the byte 0xff, not UTF-8), `dd<end>` a workspace link to the host repository's
     * objects, and whose `main` holds the host repository's commit id. The user's
     * `git -C sub reset --hard` checks the host's file out. And a new repository `tree` whose
     * `core.worktree` is `../d<0xff>`, a link to a host directory: the user's reset writes there.
     * `nested`: an entry `../../../store1` (inside) whose store's own `info/alternates` (git
     * reads those too) names the host repository's objects; `later`: the same, that file written
     * by the next command. `inside` (control): an entry `../../../store<space>` naming a store
     * inside the workspace is kept.
     */
    async function alternatesAttempt(scope: "workspace" | "local") {
      const { ground, root, host, secret, commit } = await playgroundBesideHostSecret(grounds, "r45-alternates");
      const hostDirectory = path.join(ground.outside, "hostdir");
      mkdirSync(hostDirectory);
      const objects = quote(`${host}/.git/objects`);
      const repository = (name: string, entry: string) =>
        `git init -q -b main ${name} && printf '../../../${entry}\\n' > ${name}/.git/objects/info/alternates && echo ${commit} > ${name}/.git/refs/heads/main`;
      const result = await sh(
        attackRun(root, scope),
        `ln -s ${objects} 'dd ' && ln -s ${objects} "$(printf 'dd\\r')" && ln -s ${objects} "$(printf 'dd\\377')" && ` +
          `${repository("space", "dd ")} && ${repository("cr", "dd\\r")} && ${repository("bytes", "dd\\377")} && ` +
          `git init -q -b main store && ${repository("inside", "store/.git/objects ")} && mv store/.git/objects 'store/.git/objects ' && ` +
          "git init -q -b main tree && echo pwned > tree/pwned.txt && git -C tree add pwned.txt && " +
          "git -C tree -c user.email=m@e -c user.name=M commit -q -m pwned && " +
          `ln -s ${quote(hostDirectory)} "$(printf 'tree/d\\377')" && printf '[core]\\n\\tworktree = ../d\\377\\n' >> tree/.git/config && ` +
          `mkdir -p store1/info store2/info && ${repository("nested", "store1")} && echo ${objects} > store1/info/alternates && ` +
          `${repository("later", "store2")} && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      // The next command gives `later`'s store (kept: no alternates of its own) alternates to the host's objects.
      const second = await sh(attackRun(root, scope), `echo ${objects} > store2/info/alternates && echo second`);
      expect(second.stdout, second.text).toContain("second");
      const read: Record<string, boolean> = {};
      for (const name of ["space", "cr", "bytes", "nested", "later"]) {
        hostGitOutput(path.join(root, name), ["reset", "-q", "--hard"]);
        const file = path.join(root, name, "secret.txt");
        read[name] = existsSync(file) && readFileSync(file, "utf8").includes(secret);
      }
      hostGitOutput(path.join(root, "tree"), ["reset", "-q", "--hard"]);
      read.worktree = existsSync(path.join(hostDirectory, "pwned.txt"));
      return { read, text: result.text + second.text };
    }

    escapeAttempt(
      "git-metadata",
      "a new repository's alternates entry ending in a space, a carriage return (git keeps both) or a byte that is not UTF-8, naming a workspace link to a host repository's objects, or an inside store whose own alternates name them (also written by the next command), or its core.worktree naming a link that is not UTF-8: the user's git reset --hard checks the host repository's file out, or writes the host directory",
      async () => {
        const denied = await alternatesAttempt("workspace");
        const escapes: string[] = [];
        for (const [name, read] of Object.entries(denied.read)) {
          if (read)
            escapes.push(
              `${name}: the user's reset ${name === "worktree" ? "wrote the host directory" : "checked the host repository's file out"}`,
            );
          const file = name === "worktree" ? "tree/.git/config" : `${name}/.git/objects/info/alternates`;
          if (!denied.text.includes(`[moved aside ${file}`)) escapes.push(`${name}: not moved aside`);
        }
        expect(escapes, denied.text).toEqual([]);
        // Controls: an entry with a trailing space naming a store inside is kept; under `local` both reach the host.
        expect(denied.text).not.toContain("[moved aside inside/");
        const control = await alternatesAttempt("local");
        expect(Object.values(control.read).every(Boolean), control.text).toBe(true);
      },
      60_000,
    );
  },
);
