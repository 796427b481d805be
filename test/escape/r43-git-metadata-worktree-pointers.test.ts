/**
 * Red team round 43: the pointer files of a linked worktree's git directory
 * (`.git/worktrees/<name>/`), which host git follows on the user's behalf. `commondir` names the
 * repository whose refs, objects and config the worktree uses; `gitdir` names the worktree's
 * `.git` file, which `git worktree repair` writes when it is missing. A command made such a
 * directory with `commondir` naming a workspace link that led to the protected `.git` (kept: the
 * walk judged where it led then), and the next command relinked it to a host repository's git
 * directory (the worktree's git directory now protected, so not judged again); or wrote a `gitdir`
 * naming a host directory, as written or through a workspace link relinked later. The user's
 * `git -C evil log`/`reset --hard` then read the host repository, and `git worktree repair`
 * created a `.git` file in the host directory.
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

/** A worktree git directory `.git/worktrees/evil` and its checkout `evil`, as `git worktree add` leaves them. */
const WORKTREE =
  "mkdir -p .git/worktrees/evil evil && echo 'ref: refs/heads/main' > .git/worktrees/evil/HEAD && " +
  `echo "$PWD/evil/.git" > .git/worktrees/evil/gitdir && echo 'gitdir: ../.git/worktrees/evil' > evil/.git`;

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 43, a linked worktree's commondir and gitdir"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /**
     * `commondir` of a worktree git directory the command made: `dotdot` names `d/../.git`, `d` a
     * workspace link to the host repository's `.git` (as written, `<ws>/.git`; as git resolves it,
     * the host's); `relinked` names `lnk/.git`, `lnk` a link to the workspace root, relinked to the
     * host repository by the next command; `kept` (control) leaves `lnk` as it is.
     */
    async function commondirAttempt(scope: "workspace" | "local", spelling: "dotdot" | "relinked" | "kept") {
      const { root, host, secret } = await playgroundBesideHostSecret(grounds, "r43-commondir");
      const before = hostGit(host, ["rev-parse", "main"]).trim();
      const value = spelling === "dotdot" ? "../../../d/../.git" : "../../../lnk/.git";
      const first = await sh(
        attackRun(root, scope),
        `${WORKTREE} && ln -s ${quote(`${host}/.git`)} d && ln -s . lnk && echo ${value} > .git/worktrees/evil/commondir && echo made`,
      );
      expect(first.stdout, first.text).toContain("made");
      let text = first.text;
      if (spelling === "relinked") {
        // The old spawn scan followed `lnk/.git` as spelled, a new path at each level, until ELOOP
        // failed the command (and every later one).
        const second = await sh(attackRun(root, scope), `ln -sfn ${quote(host)} lnk && echo relinked`);
        if (!second.stdout.includes("relinked")) return { read: false, moved: false, log: "", text, failed: second.text };
        text += second.text;
      }
      const checkout = path.join(root, "evil");
      const log = hostGitOutput(checkout, ["log", "--format=%s", "-1"]);
      hostGitOutput(checkout, ["reset", "-q", "--hard"]);
      hostGitOutput(checkout, [...USER, "commit", "-q", "--allow-empty", "-m", "user"]);
      const after = hostGit(host, ["rev-parse", "main"]).trim();
      const checkedOut = existsSync(path.join(checkout, "secret.txt"))
        ? readFileSync(path.join(checkout, "secret.txt"), "utf8").includes(secret)
        : false;
      return { read: log.includes("secret") || checkedOut, moved: after !== before, log, text, failed: undefined };
    }

    /**
     * A repository the command made (`sub`) whose `core.worktree` (`../d/..`) or alternates entry
     * (`../../../dd/..`) names a place inside the workspace as written that leads out through a
     * link followed by `..`: `d` a link to `<host dir>/inner`, `dd` to the host repository's
     * `objects/pack`. The user's `git -C sub reset --hard` writes the host directory, or checks
     * the host repository's commit (named by `sub`'s `HEAD`) out.
     */
    async function dotdotAttempt(scope: "workspace" | "local") {
      const { ground, root, host, secret, commit } = await playgroundBesideHostSecret(grounds, "r43-dotdot");
      const hostDirectory = path.join(ground.outside, "hostdir");
      mkdirSync(path.join(hostDirectory, "inner"), { recursive: true });
      // Both spellings in one workspace (one command): `sub` for core.worktree, `sub2` for alternates.
      const setup =
        "git init -q -b main sub && echo pwned > sub/pwned.txt && git -C sub add pwned.txt && " +
        "git -C sub -c user.email=m@e -c user.name=M commit -q -m pwned && " +
        `ln -s ${quote(path.join(hostDirectory, "inner"))} sub/d && git -C sub config core.worktree ../d/.. && ` +
        `git init -q -b main sub2 && ln -s ${quote(`${host}/.git/objects/pack`)} dd && ` +
        `echo ../../../dd/.. > sub2/.git/objects/info/alternates && echo ${commit} > sub2/.git/refs/heads/main`;
      const result = await sh(attackRun(root, scope), `${setup} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      const reset =
        hostGitOutput(path.join(root, "sub"), ["reset", "-q", "--hard"]) +
        hostGitOutput(path.join(root, "sub2"), ["reset", "-q", "--hard"]);
      const checkout = path.join(root, "sub2", "secret.txt");
      return {
        worktree: existsSync(path.join(hostDirectory, "pwned.txt")),
        alternates: existsSync(checkout) && readFileSync(checkout, "utf8").includes(secret),
        reset,
        text: result.text,
      };
    }

    /**
     * Two worktree git directories: `evil`'s `gitdir` names `<host dir>/.git` as written, `evil2`'s
     * names `<ws>/d/.git` with `d` a workspace directory, relinked to a second host directory by the
     * next command (`relink`); the user's `git worktree repair` then writes each `.git` it finds
     * missing.
     */
    async function gitdirAttempt(scope: "workspace" | "local", relink: boolean) {
      const { ground, root } = await playgroundBesideHostSecret(grounds, "r43-gitdir");
      const outside = path.join(ground.outside, "hostdir");
      const relinked = path.join(ground.outside, "hostdir2");
      mkdirSync(outside);
      mkdirSync(relinked);
      const first = await sh(
        attackRun(root, scope),
        `${WORKTREE} && echo ../.. > .git/worktrees/evil/commondir && echo ${quote(path.join(outside, ".git"))} > .git/worktrees/evil/gitdir && ` +
          "mkdir -p .git/worktrees/evil2 d && cp .git/worktrees/evil/HEAD .git/worktrees/evil/commondir .git/worktrees/evil2/ && " +
          'echo "$PWD/d/.git" > .git/worktrees/evil2/gitdir && echo made',
      );
      expect(first.stdout, first.text).toContain("made");
      let text = first.text;
      if (relink) {
        const second = await sh(attackRun(root, scope), `rmdir d && ln -s ${quote(relinked)} d && echo relinked`);
        expect(second.stdout, second.text).toContain("relinked");
        text += second.text;
      }
      const repair = hostGitOutput(root, ["worktree", "repair"]);
      return {
        outside: existsSync(path.join(outside, ".git")),
        relinked: existsSync(path.join(relinked, ".git")),
        insideRepaired: !relink && existsSync(path.join(root, "d", ".git")),
        repair,
        text,
      };
    }

    escapeAttempt(
      "git-metadata",
      "a linked worktree's commondir leading out through a link followed by .., or through a workspace link relinked by a later command: the user's git in the worktree reads and moves the host repository",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["dotdot", "relinked"] as const) {
          const denied = await commondirAttempt("workspace", spelling);
          if (denied.read) escapes.push(`${spelling}: the user's log or reset read the host repository: ${denied.log}`);
          if (denied.moved) escapes.push(`${spelling}: the user's commit moved the host repository's branch`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${spelling}: nothing moved aside`);
          if (denied.failed !== undefined) escapes.push(`${spelling}: the next command failed: ${denied.failed}`);
          if (denied.text.includes("[moved aside") && !denied.text.includes("commondir: a pointer to"))
            escapes.push(`${spelling}: the note does not say what commondir named: ${denied.text}`);
        }
        expect(escapes).toEqual([]);
        // Controls: with no git protection the relinked commondir reads the host repository; left
        // leading to the workspace's own `.git` through the link, the worktree is kept and works.
        const control = await commondirAttempt("local", "relinked");
        expect(control.read, control.text).toBe(true);
        const kept = await commondirAttempt("workspace", "kept");
        expect(kept.text).not.toContain("[moved aside");
        expect(kept.log).toBe("a\n");
      },
      120_000,
    );

    escapeAttempt(
      "git-metadata",
      "a new repository's core.worktree or alternates entry naming a place inside the workspace as written, leading out through a link followed by ..: the user's git reset --hard writes the host directory or checks the host repository out",
      async () => {
        const escapes: string[] = [];
        const denied = await dotdotAttempt("workspace");
        if (denied.worktree) escapes.push("worktree: the user's reset wrote the host directory");
        if (denied.alternates) escapes.push("alternates: the user's reset checked the host repository's file out");
        if (!denied.text.includes("[moved aside sub/.git/config")) escapes.push("worktree: its config not moved aside");
        if (!denied.text.includes("[moved aside sub2/.git/objects/info/alternates")) escapes.push("alternates: not moved aside");
        expect(escapes, denied.text).toEqual([]);
        // Control: with no git protection both reach the host.
        const control = await dotdotAttempt("local");
        expect(control.worktree && control.alternates, `${control.reset} ${control.text}`).toBe(true);
      },
      120_000,
    );

    escapeAttempt(
      "git-metadata",
      "a linked worktree's gitdir naming a host directory, as written or through a workspace link relinked later: the user's git worktree repair writes a .git file there",
      async () => {
        const escapes: string[] = [];
        const denied = await gitdirAttempt("workspace", true);
        if (denied.outside) escapes.push("outside: git worktree repair wrote the host directory's .git");
        if (denied.relinked) escapes.push("relinked: git worktree repair wrote the host directory's .git");
        if (!denied.text.includes("[moved aside .git/worktrees/evil/gitdir")) escapes.push("outside: not moved aside");
        if (!denied.text.includes("[moved aside .git/worktrees/evil2/gitdir")) escapes.push("relinked: not moved aside");
        expect(escapes, denied.text).toEqual([]);
        // Controls: with no git protection the repair writes the host directory; a gitdir naming a
        // workspace directory is kept and repaired there.
        const control = await gitdirAttempt("local", false);
        expect(control.outside, control.text).toBe(true);
        const inside = await gitdirAttempt("workspace", false);
        expect(inside.text).not.toContain("[moved aside .git/worktrees/evil2/gitdir");
        expect(inside.insideRepaired, inside.repair).toBe(true);
      },
      120_000,
    );

    /** A `.git` file in `x` naming the workspace's `.git` as `value`; then the next command and the user's `git -C x log`. */
    async function pointerThroughLink(value: string) {
      const { root } = await playgroundBesideHostSecret(grounds, "r43-pointer");
      const first = await sh(
        attackRun(root, "workspace"),
        `ln -s . lnk && mkdir x && echo 'gitdir: ${value}' > x/.git && echo made`,
      );
      expect(first.stdout, first.text).toContain("made");
      const second = await sh(attackRun(root, "workspace"), "echo second");
      return { second, log: hostGitOutput(path.join(root, "x"), ["log", "--format=%s", "-1"]) };
    }

    escapeAttempt(
      "resources",
      "a .git file naming the workspace's git directory through a workspace link to the workspace root: every later command refused",
      async () => {
        // The spawn scan bound the pointer's target as spelled (`lnk/.git`), a path the mount check
        // never finds: "changed while the sandbox was being set up" for every later command.
        const denied = await pointerThroughLink("../lnk/.git");
        expect(denied.second.stdout, denied.second.text).toBe("second");
        expect(denied.log).toBe("a\n");
        // Control: the same pointer spelled without the link.
        const plain = await pointerThroughLink("../.git");
        expect(plain.second.stdout, plain.second.text).toBe("second");
        expect(plain.log).toBe("a\n");
      },
      60_000,
    );

    /**
     * A gitlink below the walk's depth (`a/b/c/d/e/f/g/sub`, in the protected index, with
     * `.gitmodules` naming it) whose `.git` file names `<up>/dd/../.git`, `dd` a workspace link to
     * the host repository's `.git`: the workspace's `.git` as written, the host repository to git.
     * The user's `git status` and `git submodule update --init --force` in the workspace.
     */
    async function gitlinkAttempt(scope: "workspace" | "local") {
      const { root, host, secret, commit } = await playgroundBesideHostSecret(grounds, "r43-gitlink");
      const deep = "a/b/c/d/e/f/g/sub";
      const result = await sh(
        attackRun(root, scope),
        `mkdir -p ${deep} && ln -s ${quote(`${host}/.git`)} dd && echo "gitdir: ${"../".repeat(8)}dd/../.git" > ${deep}/.git && ` +
          `git update-index --add --cacheinfo 160000,${commit},${deep} && ` +
          `printf '[submodule "s"]\\n\\tpath = ${deep}\\n\\turl = ./nowhere\\n' > .gitmodules && echo made`,
      );
      expect(result.stdout, result.text).toContain("made");
      const head = readFileSync(path.join(host, ".git", "HEAD"), "utf8");
      hostGitOutput(root, ["status", "--short"]);
      const update = hostGitOutput(root, ["submodule", "update", "--init", "--force"]);
      const file = path.join(root, deep, "secret.txt");
      const read = existsSync(file) && readFileSync(file, "utf8").includes(secret);
      return { read, detached: readFileSync(path.join(host, ".git", "HEAD"), "utf8") !== head, update, text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "a gitlink's .git file below the walk's depth naming dd/../.git, dd a link to a host repository's .git: the user's git submodule update detaches the host repository's HEAD and checks it out",
      async () => {
        const denied = await gitlinkAttempt("workspace");
        const escapes: string[] = [];
        if (denied.read) escapes.push("the user's submodule update checked the host repository's file out into the workspace");
        if (denied.detached) escapes.push("the user's submodule update moved the host repository's HEAD");
        if (!denied.text.includes("[moved aside")) escapes.push("nothing moved aside");
        expect(escapes, denied.update).toEqual([]);
        // Control: with no git protection both happen.
        const control = await gitlinkAttempt("local");
        expect(control.read && control.detached, `${control.update} ${control.text}`).toBe(true);
      },
      60_000,
    );
  },
);
