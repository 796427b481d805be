/**
 * Red team round 38, follow-up: what the first round left open. Three attempts.
 *
 * Loose objects: git reads a loose object (`objects/xx/<rest of the hash>`) by name, follows a
 * link there and does not check the content against the name. A command that knows the id of
 * a host repository's object (as in round 38's known-commit spelling) links that name in the
 * workspace's protected `.git` to the host repository's loose object file, commits a tree naming
 * it (`git mktree --missing`), and the user's `git reset --hard` writes the host file into the
 * workspace, or the user's `git gc` copies it into a pack the next command reads.
 *
 * Files git writes by name (`MERGE_MSG`, `SQUASH_MSG`, `TAG_EDITMSG`, `BISECT_*`, `rr-cache/`,
 * `rebase-merge/`, `sequencer/`, `NOTES_EDITMSG`, `description`, `gitk.cache`, `shallow`, and
 * `info/exclude` of a new repository) as links to host files: the user's merge, tag, bisect,
 * rerere, rebase, cherry-pick and notes would write them; held by the walk (each link moved).
 *
 * A protected repository's own `objects/info/alternates` (read-only to the command) naming an
 * object store inside the workspace that the command relinks to a host repository's objects,
 * with the branch set to a host commit whose id it knows: the user's `git reset --hard` reads
 * the host repository.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit, hostGitOutput } from "./support/host-git.js";
import { playgroundBesideHostSecret } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The user's identity for the commits made on the host after the command. */
const USER = ["-c", "user.email=u@example.com", "-c", "user.name=U"];
/** The command's identity for its own commits. */
const ID = "git -c user.email=m@example.com -c user.name=M";

/** The names git writes (or reads) by name in a git directory, each planted as a link to its own host file. */
const NAMES = [
  "MERGE_MSG",
  "SQUASH_MSG",
  "TAG_EDITMSG",
  "BISECT_LOG",
  "BISECT_START",
  "BISECT_TERMS",
  "BISECT_NAMES",
  "rr-cache",
  "rebase-merge",
  "sequencer",
  "NOTES_EDITMSG",
  "description",
  "gitk.cache",
  "shallow",
] as const;

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 38 follow-up, loose objects, files git writes by name, relinked alternates"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace that is a repository with one commit, and a host repository holding `secret.txt` (loose). */
    const setUp = () => playgroundBesideHostSecret(grounds, "r38-loose");

    /** The command links the loose object `blob` to the host's and commits a tree naming it; the user resets or collects garbage. */
    async function looseAttempt(scope: "workspace" | "local", user: "reset" | "gc") {
      const { root, host, secret, blob } = await setUp();
      const run = attackRun(root, scope);
      const name = `${blob.slice(0, 2)}/${blob.slice(2)}`;
      const result = await sh(
        run,
        `mkdir -p .git/objects/${blob.slice(0, 2)} && ln -s ${quote(`${host}/.git/objects/${name}`)} .git/objects/${name} && ` +
          `T=$(printf '100644 blob ${blob}\\tsecret.txt\\n' | git mktree --missing) && C=$(${ID} commit-tree -p HEAD -m planted "$T") && ` +
          `${user === "reset" ? "git update-ref refs/heads/main" : "git update-ref refs/heads/planted"} "$C" && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      if (user === "reset") hostGitOutput(root, ["reset", "-q", "--hard"]);
      else hostGitOutput(root, ["gc", "-q"]);
      const shown = await sh(run, `cat secret.txt 2>&1; git cat-file -p ${blob} 2>&1; echo shown`);
      return { read: shown.stdout.includes(secret), text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "a loose object of the protected repository linked to a host repository's object: the user's reset checks it out, gc packs it",
      async () => {
        const escapes: string[] = [];
        for (const user of ["reset", "gc"] as const) {
          const denied = await looseAttempt("workspace", user);
          if (denied.read) escapes.push(`${user}: the host repository's object reached the next command`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${user}: nothing moved aside`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the user's reset reads through the link.
        const control = await looseAttempt("local", "reset");
        expect(control.read, `control did not read: ${control.text}`).toBe(true);
      },
      120_000,
    );

    /** Links every name of NAMES (and a new repository's `info/exclude`) to its own host file; the user runs the git that writes each. */
    async function namedAttempt(scope: "workspace" | "local") {
      const { ground, root } = await setUp();
      // A side branch that conflicts with main (rerere, merge messages) and a commit to pick.
      hostGit(root, ["checkout", "-q", "-b", "side"]);
      await writeFile(path.join(root, "a.txt"), "side\n");
      hostGit(root, ["commit", "-q", "-am", "side"]);
      hostGit(root, ["checkout", "-q", "main"]);
      await writeFile(path.join(root, "a.txt"), "main\n");
      hostGit(root, ["commit", "-q", "-am", "main"]);
      await writeFile(path.join(root, "c.txt"), "c\n");
      hostGit(root, ["add", "c.txt"]);
      hostGit(root, ["commit", "-q", "-m", "c"]);
      const victims = path.join(ground.outside, "victims");
      mkdirSync(victims);
      // Each link leads to a host path not there yet (git creates it), `rr-cache` to an empty host directory.
      mkdirSync(path.join(victims, "rr-cache"));
      const planted = NAMES.map((name) => `rm -rf .git/${name} && ln -s ${quote(path.join(victims, name))} .git/${name}`);
      await writeFile(path.join(victims, "exclude"), "*.txt\n");
      planted.push(`git init -q -b main sub && ln -sf ${quote(path.join(victims, "exclude"))} sub/.git/info/exclude`);
      const result = await sh(attackRun(root, scope), `${planted.join(" && ")} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      const user = (args: string[]) => hostGitOutput(root, [...USER, ...args]);
      // The user's editors: one that writes a note, one that keeps the rebase's list.
      process.env.GIT_EDITOR = "printf note >";
      process.env.GIT_SEQUENCE_EDITOR = "true";
      try {
        user(["-c", "rerere.enabled=true", "merge", "-q", "--no-edit", "side"]);
        user(["merge", "--abort"]);
        user(["merge", "--squash", "-q", "side"]);
        user(["reset", "-q", "--hard"]);
        user(["tag", "-a", "-e", "-m", "t", "t1"]);
        user(["bisect", "start", "HEAD", "HEAD~2"]);
        user(["bisect", "reset"]);
        user(["notes", "add"]);
        user(["rebase", "-q", "-i", "HEAD~1"]);
        user(["cherry-pick", "side~1..side"]);
        user(["cherry-pick", "--abort"]);
        user(["log", "-1"]);
      } finally {
        delete process.env.GIT_EDITOR;
        delete process.env.GIT_SEQUENCE_EDITOR;
      }
      await writeFile(path.join(root, "sub", "s.txt"), "s\n");
      const status = hostGitOutput(path.join(root, "sub"), ["status", "--porcelain"]);
      const written = NAMES.filter((name) =>
        name === "rr-cache" ? readdirSync(path.join(victims, name)).length > 0 : existsSync(path.join(victims, name)),
      );
      const linked = NAMES.filter((name) =>
        lstatSync(path.join(root, ".git", name), { throwIfNoEntry: false })?.isSymbolicLink(),
      );
      if (lstatSync(path.join(root, "sub", ".git", "info", "exclude"), { throwIfNoEntry: false })?.isSymbolicLink())
        linked.push("info/exclude" as never);
      // The host file's pattern hides s.txt from the user's status.
      const excluded = !status.includes("s.txt");
      return { written, linked, excluded, text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "MERGE_MSG, SQUASH_MSG, TAG_EDITMSG, BISECT_*, rr-cache, rebase-merge, sequencer, NOTES_EDITMSG and other files git writes by name linked to host files: the user's merge, tag, bisect, rerere, notes write them",
      async () => {
        const denied = await namedAttempt("workspace");
        expect({ written: denied.written, linked: denied.linked, excluded: denied.excluded }, denied.text).toEqual({
          written: [],
          linked: [],
          excluded: false,
        });
        // Control: with no git protection the user's git writes through the links and reads the exclude.
        const control = await namedAttempt("local");
        expect(control.written, control.text).toEqual(
          expect.arrayContaining(["MERGE_MSG", "TAG_EDITMSG", "NOTES_EDITMSG", "rr-cache", "rebase-merge"]),
        );
        expect(control.excluded).toBe(true);
      },
      120_000,
    );

    /** The protected repository's alternates name `store/objects` in the workspace; the command relinks it to the host's objects. */
    async function alternatesAttempt(scope: "workspace" | "local", relink: boolean) {
      const { root, host, secret, commit } = await setUp();
      // An object store inside the workspace the user set up (not a repository of its own).
      mkdirSync(path.join(root, "store", "objects"), { recursive: true });
      await writeFile(path.join(root, ".git", "objects", "info", "alternates"), `${path.join(root, "store", "objects")}\n`);
      const run = attackRun(root, scope);
      const command = relink
        ? `rm -rf store && ln -s ${quote(`${host}/.git`)} store && echo ${commit} > .git/refs/heads/main && echo made`
        : "echo made";
      const result = await sh(run, command);
      expect(result.stdout, result.text).toContain("made");
      const log = hostGitOutput(root, ["log", "--format=%s", "-1"]);
      hostGitOutput(root, ["reset", "-q", "--hard"]);
      const shown = await sh(run, "cat secret.txt 2>&1; echo shown");
      return { read: shown.stdout.includes(secret), text: result.text, log };
    }

    escapeAttempt(
      "git-metadata",
      "the protected repository's own alternates name a store inside the workspace the command relinks to a host repository's objects: the user's reset reads it",
      async () => {
        const denied = await alternatesAttempt("workspace", true);
        expect(denied.read, denied.text).toBe(false);
        expect(denied.text).toContain("[moved aside");
        // Control: with no git protection the user's reset reads the host repository.
        const control = await alternatesAttempt("local", true);
        expect(control.read, `control did not read: ${control.text}`).toBe(true);
        // Control: alternates still inside the workspace are kept.
        const kept = await alternatesAttempt("workspace", false);
        expect(kept.text).not.toContain("[moved aside");
        expect(kept.log.trim()).toBe("a");
      },
      120_000,
    );
  },
);
