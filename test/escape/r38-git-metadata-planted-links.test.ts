/**
 * Red team round 38: links a command plants inside a git directory for host git to follow.
 * Git opens its own files by name and follows a symbolic link at any of them: `git commit`
 * writes the message into `COMMIT_EDITMSG` (truncating it), every ref update appends a line to
 * `logs/HEAD`, and a loose ref, `packed-refs`, `refs/` or `objects/` that is a link makes git
 * read (and `git commit` move) another repository's refs and objects. In a protected git
 * directory only the config and hooks (and a few control files) are read-only; the rest is the
 * command's to write, as in a repository the command makes. Held when the walk after the command
 * moves such links (and a new repository's `objects/info/alternates` naming a host object store)
 * aside: the user's git then writes its own files, and finds no host objects.
 *
 * First attempt: the workspace's own (protected) repository, `COMMIT_EDITMSG`, `logs/HEAD` and
 * `FETCH_HEAD` linked to a host file, and `COMMIT_EDITMSG` linked to a host path that does not
 * exist yet, and `COMMIT_EDITMSG` of a submodule's and of a linked worktree's git directory; the
 * user commits and fetches. Second: a repository the command makes, with alternates naming a host
 * repository's objects and its branch a link to the host's ref (or `packed-refs` a link to the
 * host's, or no link but a HEAD naming a host commit whose id the command knows); the user's
 * `git reset --hard` checks the host's files out into the workspace, and with `objects` and
 * `refs` links the user's commit moves the host repository's branch. Controls: under `local` (no
 * git protection) each is followed; a link leading inside the workspace is kept (the user's commit
 * writes through it), and so are the alternates of `git clone --shared` from the workspace.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit, hostGitOutput } from "./support/host-git.js";
import { oneCommitPlayground } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The user's identity for the commits made on the host after the command. */
const USER = ["-c", "user.email=u@example.com", "-c", "user.name=U"];
const ORIGINAL = "host-original\n";
const MESSAGE = "r38-user-message";

/** A link the command plants in the protected `.git` for the user's commit to write through. */
type ProtectedSpelling = "COMMIT_EDITMSG" | "logs/HEAD" | "FETCH_HEAD" | "dangling COMMIT_EDITMSG";

/** How the command makes `sub` lead host git to the host repository `$H`. */
type NewSpelling = "alternates and ref" | "alternates and packed-refs" | "objects and refs" | "alternates and a known commit id";

function newRepositoryCommand(spelling: NewSpelling): string {
  const init = "git init -q -b main sub";
  const alternates = 'echo "$H/.git/objects" > sub/.git/objects/info/alternates';
  if (spelling === "alternates and ref")
    return `${init} && ${alternates} && ln -s "$H/.git/refs/heads/main" sub/.git/refs/heads/main`;
  // No link: a commit id of the host repository the command knows (not the files it holds).
  if (spelling === "alternates and a known commit id") return `${init} && ${alternates} && echo "$C" > sub/.git/HEAD`;
  if (spelling === "alternates and packed-refs")
    return `${init} && ${alternates} && ln -s "$H/.git/packed-refs" sub/.git/packed-refs`;
  return `${init} && rm -rf sub/.git/objects sub/.git/refs && ln -s "$H/.git/objects" sub/.git/objects && ln -s "$H/.git/refs" sub/.git/refs`;
}

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 38, links planted in a git directory for host git to follow"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace that is a repository with one commit, and a host file outside it. */
    async function setUp() {
      const { ground, root } = await oneCommitPlayground(grounds);
      const victim = path.join(ground.outside, "victim.txt");
      await writeFile(victim, ORIGINAL);
      return { ground, root, victim };
    }

    /** The command links `.git/<name>` to the host file; then the user commits a change. */
    async function protectedAttempt(scope: "workspace" | "local", spelling: ProtectedSpelling) {
      const { ground, root, victim } = await setUp();
      const dangling = spelling.startsWith("dangling");
      const name = dangling ? "COMMIT_EDITMSG" : spelling;
      const target = dangling ? path.join(ground.outside, "created.txt") : victim;
      const result = await sh(attackRun(root, scope), `rm -f .git/${name} && ln -s ${quote(target)} .git/${name} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      await writeFile(path.join(root, "b.txt"), "b\n");
      hostGitOutput(root, ["add", "b.txt"]);
      hostGitOutput(root, [...USER, "commit", "-q", "-m", MESSAGE]);
      // A fetch from the repository itself writes FETCH_HEAD.
      hostGitOutput(root, ["fetch", "-q", ".", "main"]);
      const written = dangling ? existsSync(target) : readFileSync(victim, "utf8") !== ORIGINAL;
      return { written, text: result.text, log: hostGitOutput(root, ["log", "--format=%s", "-1"]) };
    }

    /** The command links `COMMIT_EDITMSG` of a submodule's or a linked worktree's git directory (host-made); the user commits there. */
    async function nestedAttempt(where: "modules/lib" | "worktrees/wt") {
      const { ground, root, victim } = await setUp();
      let checkout: string;
      if (where === "modules/lib") {
        const library = path.join(ground.outside, "library");
        mkdirSync(library);
        hostGit(library, ["init", "-q", "-b", "main"]);
        await writeFile(path.join(library, "l.txt"), "l\n");
        hostGit(library, ["add", "l.txt"]);
        hostGit(library, ["commit", "-q", "-m", "l"]);
        hostGit(root, ["-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "lib"]);
        hostGit(root, ["commit", "-q", "-m", "lib"]);
        checkout = path.join(root, "lib");
      } else {
        hostGit(root, ["worktree", "add", "-q", "wt"]);
        checkout = path.join(root, "wt");
      }
      const result = await sh(
        attackRun(root, "workspace"),
        `rm -f .git/${where}/COMMIT_EDITMSG && ln -s ${quote(victim)} .git/${where}/COMMIT_EDITMSG && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      await writeFile(path.join(checkout, "b.txt"), "b\n");
      hostGitOutput(checkout, ["add", "b.txt"]);
      hostGitOutput(checkout, [...USER, "commit", "-q", "-m", MESSAGE]);
      return { written: readFileSync(victim, "utf8") !== ORIGINAL, text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "COMMIT_EDITMSG, logs/HEAD and FETCH_HEAD of the protected repository made links to a host file (or a host path not yet there): the user's commit or fetch writes it",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["COMMIT_EDITMSG", "logs/HEAD", "FETCH_HEAD", "dangling COMMIT_EDITMSG"] as const) {
          const denied = await protectedAttempt("workspace", spelling);
          if (denied.written) escapes.push(`${spelling}: the user's commit or fetch wrote the host file`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${spelling}: no link moved aside`);
          // The user's commit itself still works.
          expect(denied.log.trim(), spelling).toBe(MESSAGE);
        }
        // The protected git directories of a submodule and of a linked worktree.
        for (const where of ["modules/lib", "worktrees/wt"] as const) {
          const denied = await nestedAttempt(where);
          if (denied.written) escapes.push(`${where}: the user's commit wrote the host file`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${where}: no link moved aside`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the commit writes through the link.
        const control = await protectedAttempt("local", "COMMIT_EDITMSG");
        expect(control.written, `control did not write: ${control.text}`).toBe(true);
        // Control: a link leading inside the workspace is kept, and the user's commit writes through it.
        const { root } = await setUp();
        const inside = await sh(
          attackRun(root, "workspace"),
          "rm -f .git/logs/HEAD && : > kept-reflog && ln -s ../../kept-reflog .git/logs/HEAD && echo made",
        );
        expect(inside.stdout, inside.text).toContain("made");
        expect(inside.text).not.toContain("[moved aside");
        await writeFile(path.join(root, "b.txt"), "b\n");
        hostGitOutput(root, ["add", "b.txt"]);
        hostGitOutput(root, [...USER, "commit", "-q", "-m", MESSAGE]);
        expect(readFileSync(path.join(root, "kept-reflog"), "utf8")).toContain(MESSAGE);
      },
      120_000,
    );

    /** The command makes `sub` leading to the host repository; the user resets it, then commits there. */
    async function newAttempt(scope: "workspace" | "local", spelling: NewSpelling) {
      const { ground, root } = await setUp();
      const host = path.join(ground.outside, "hostrepo");
      mkdirSync(host);
      hostGit(host, ["init", "-q", "-b", "main"]);
      const secret = `r38-host-secret-${process.pid}`;
      await writeFile(path.join(host, "secret.txt"), `${secret}\n`);
      hostGit(host, ["add", "secret.txt"]);
      hostGit(host, ["commit", "-q", "-m", "secret"]);
      if (spelling === "alternates and packed-refs") hostGit(host, ["pack-refs", "--all"]);
      const before = hostGit(host, ["rev-parse", "main"]).trim();
      const run = attackRun(root, scope);
      const result = await sh(run, `H=${quote(host)}; C=${before}; ${newRepositoryCommand(spelling)} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      const sub = path.join(root, "sub");
      hostGitOutput(sub, ["reset", "-q", "--hard"]);
      await writeFile(path.join(sub, "planted.txt"), "planted\n");
      hostGitOutput(sub, ["add", "planted.txt"]);
      hostGitOutput(sub, [...USER, "commit", "-q", "-m", MESSAGE]);
      const shown = await sh(run, "cat sub/secret.txt 2>&1; echo shown");
      return {
        read: shown.stdout.includes(secret),
        moved: hostGit(host, ["rev-parse", "main"]).trim() !== before,
        text: result.text,
      };
    }

    escapeAttempt(
      "git-metadata",
      "a repository the command made leads host git to a host repository (alternates and a linked ref or packed-refs, linked objects and refs): the user's reset reads it, commit moves its branch",
      async () => {
        const escapes: string[] = [];
        const spellings = [
          "alternates and ref",
          "alternates and packed-refs",
          "objects and refs",
          "alternates and a known commit id",
        ] as const;
        for (const spelling of spellings) {
          const denied = await newAttempt("workspace", spelling);
          if (denied.read) escapes.push(`${spelling}: the host repository's file reached the next command`);
          if (denied.moved) escapes.push(`${spelling}: the user's commit moved the host repository's branch`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${spelling}: nothing moved aside`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection both are followed.
        const read = await newAttempt("local", "alternates and ref");
        expect(read.read, `control did not read: ${read.text}`).toBe(true);
        const moved = await newAttempt("local", "objects and refs");
        expect(moved.moved, `control did not move the branch: ${moved.text}`).toBe(true);
        // Control: alternates naming a repository inside the workspace (git clone --shared) are kept.
        const { root } = await setUp();
        const shared = await sh(attackRun(root, "workspace"), "git clone -q --shared . sub && echo made");
        expect(shared.stdout, shared.text).toContain("made");
        expect(shared.text).not.toContain("[moved aside");
        expect(readFileSync(path.join(root, "sub", "a.txt"), "utf8")).toBe("a\n");
        expect(hostGitOutput(path.join(root, "sub"), ["log", "--format=%s", "-1"]).trim()).toBe("a");
      },
      120_000,
    );
  },
);
