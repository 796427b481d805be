/**
 * Red team round 36: a repository a command makes whose `core.worktree` names a directory outside
 * the workspace. The walk after a command keeps a new repository's config when every key is one
 * `git init`, `git clone` or `git submodule add` writes, and `core.worktree` is one (a submodule's
 * git directory under `.git/modules/` names its checkout with it). Its value is where host git
 * reads and writes the work tree: the user's `git checkout -- .` in that repository then writes the
 * command's files into the host directory it names (`/root`, a home directory), and `git add -A`
 * reads the host directory's files into objects the next sandboxed command can print. Held when
 * such a config is moved aside (the command's files land in the repository's own directory, the
 * outside is untouched). Variants: an absolute value, a relative one climbing out of the
 * workspace, one through a link in the workspace to the outside, and a submodule's git directory
 * under the protected `.git/modules/`. Control: under `local` (no git protection) host git
 * writes the outside file; a `core.worktree` inside the workspace (what `git submodule add`
 * writes) keeps the config. Second attempt: a value inside the workspace, kept, whose directory
 * the next command (the repository now protected, its config read-only) replaces with a link to
 * the outside directory; held when that config is moved aside after that command.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** Identity for commits made inside the sandbox (no global config there). */
const ID = "-c user.email=a@example.com -c user.name=A";
/** What the command commits and host git later checks out. */
const PLANTED = "r36-planted-by-the-command";

/** How the command names the outside directory `$V` in the repository `$R`'s config. */
type Spelling = "absolute" | "relative" | "link" | "submodule";

/** A command making repository `sub` (or the submodule `lib`) with one committed file, then pointing its work tree at `$V`. */
function attack(
  spelling: Spelling,
  workspace: string,
  victim: string,
): { command: string; checkout: string; gitDirectory: string } {
  const commit = `echo ${PLANTED} > planted.txt && git add planted.txt && git ${ID} commit -q -m planted`;
  if (spelling === "submodule") {
    // What `git submodule add` leaves (a git directory under the protected .git/modules/ and a
    // pointer), with the work tree named outside.
    return {
      command: [
        "mkdir -p lib .git/modules && git init -q --separate-git-dir=.git/modules/lib lib",
        `(cd lib && ${commit})`,
        'git --git-dir=.git/modules/lib config core.worktree "$V"',
      ].join(" && "),
      checkout: "lib",
      gitDirectory: ".git/modules/lib",
    };
  }
  const climb = path.relative(path.join(workspace, "sub", ".git"), victim);
  const value = spelling === "absolute" ? '"$V"' : spelling === "relative" ? quote(climb) : "../../out";
  return {
    command: [
      `git init -q sub && (cd sub && ${commit})`,
      ...(spelling === "link" ? ['ln -s "$V" out'] : []),
      `git -C sub config core.worktree ${value}`,
    ].join(" && "),
    checkout: "sub",
    gitDirectory: "sub/.git",
  };
}

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 36, a new repository's work tree named outside the workspace"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** Runs the attack under `scope`, then host git in the repository as a user would: checkout, then add. */
    async function attempt(scope: "workspace" | "local", spelling: Spelling) {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGitOutput(root, ["init", "-q", "-b", "main"]);
      await writeFile(path.join(root, "a.txt"), "a\n");
      const victim = path.join(ground.outside, "home");
      mkdirSync(victim);
      const secret = `r36-host-secret-${process.pid}-${spelling}`;
      await writeFile(path.join(victim, "secret.txt"), `${secret}\n`);
      const { command, checkout, gitDirectory } = attack(spelling, root, victim);
      const run = attackRun(root, scope);
      const result = await sh(run, `V=${quote(victim)}; ${command} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      const repository = path.join(root, checkout);
      // The user's review: put back what the command committed, and stage everything.
      hostGitOutput(repository, ["checkout", "--", "."]);
      hostGitOutput(repository, ["add", "-A"]);
      // The next command reads the index host git wrote (its own work tree named, so git runs).
      const shown = await sh(run, `git --git-dir=${gitDirectory} --work-tree=. show :secret.txt 2>&1; echo shown`);
      return {
        wrote: existsSync(path.join(victim, "planted.txt")),
        read: shown.stdout.includes(secret),
        text: result.text,
      };
    }

    /** Positive control: a core.worktree inside the workspace (as git submodule add writes it) keeps its config. */
    async function insideKept(): Promise<void> {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGitOutput(root, ["init", "-q", "-b", "main"]);
      const command = [
        "mkdir -p lib .git/modules && git init -q --separate-git-dir=.git/modules/lib lib",
        "git --git-dir=.git/modules/lib config core.worktree ../../../lib",
        "git init -q sub && mkdir tree && git -C sub config core.worktree ../../tree",
        "echo made",
      ].join(" && ");
      const result = await sh(attackRun(root, "workspace"), command);
      expect(result.stdout, result.text).toContain("made");
      expect(result.text).not.toContain("[moved aside");
      expect(readFileSync(path.join(root, ".git", "modules", "lib", "config"), "utf8")).toContain("../../../lib");
      expect(readFileSync(path.join(root, "sub", ".git", "config"), "utf8")).toContain("../../tree");
      expect(hostGitOutput(path.join(root, "lib"), ["rev-parse", "--show-toplevel"]).trim()).toBe(path.join(root, "lib"));
    }

    escapeAttempt(
      "git-metadata",
      "core.worktree of a repository the command made names an outside directory (absolute, relative, through a link, a submodule's): host git checks out and adds there",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["absolute", "relative", "link", "submodule"] as const) {
          const denied = await attempt("workspace", spelling);
          if (denied.wrote) escapes.push(`${spelling}: host git wrote the outside directory`);
          if (denied.read) escapes.push(`${spelling}: the outside file reached the next command`);
          if (!/\[moved aside \S*config/.test(denied.text)) escapes.push(`${spelling}: config kept`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the same config is followed, both ways.
        for (const spelling of ["absolute", "submodule"] as const) {
          const control = await attempt("local", spelling);
          expect(control.wrote, `${spelling}: control did not write: ${control.text}`).toBe(true);
          expect(control.read, `${spelling}: control did not read`).toBe(true);
        }
        await insideKept();
      },
      120_000,
    );

    escapeAttempt(
      "git-metadata",
      "a kept core.worktree inside the workspace whose directory a later command replaces with a link out (present, absent at first)",
      async () => {
        const escapes: string[] = [];
        for (const present of [true, false]) {
          const ground = await playground();
          grounds.push(ground);
          const root = ground.workspace;
          hostGitOutput(root, ["init", "-q", "-b", "main"]);
          const victim = path.join(ground.outside, "home");
          mkdirSync(victim);
          const secret = `r36-relinked-secret-${process.pid}-${present}`;
          await writeFile(path.join(victim, "secret.txt"), `${secret}\n`);
          const run = attackRun(root, "workspace");
          const first = await sh(
            run,
            `git init -q sub && (cd sub && echo ${PLANTED} > planted.txt && git add planted.txt && git ${ID} commit -q -m planted) && ${present ? "mkdir tree && " : ""}git -C sub config core.worktree ../../tree && echo made`,
          );
          expect(first.stdout, first.text).toContain("made");
          // Kept: inside the workspace, as git submodule add writes it.
          expect(first.text).not.toContain("[moved aside");
          // The next command: sub/.git is protected now (its config read-only), the work tree is not.
          const second = await sh(run, `V=${quote(victim)}; rm -rf tree && ln -s "$V" tree && echo relinked`);
          expect(second.stdout, second.text).toContain("relinked");
          hostGitOutput(path.join(root, "sub"), ["checkout", "--", "."]);
          hostGitOutput(path.join(root, "sub"), ["add", "-A"]);
          const shown = await sh(run, "git --git-dir=sub/.git --work-tree=. show :secret.txt 2>&1; echo shown");
          if (existsSync(path.join(victim, "planted.txt")))
            escapes.push(`present=${present}: host git wrote the outside directory`);
          if (shown.stdout.includes(secret)) escapes.push(`present=${present}: the outside file reached the next command`);
          if (!second.text.includes("[moved aside sub/.git/config: the work tree its core.worktree names became a link"))
            escapes.push(`present=${present}: config kept: ${second.text}`);
        }
        expect(escapes).toEqual([]);
      },
      120_000,
    );
  },
);
