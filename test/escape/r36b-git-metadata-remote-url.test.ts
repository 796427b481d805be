/**
 * Red team round 36, follow-up: a repository a command makes whose remote URL names a host
 * repository. The walk after a command keeps a new repository's config when every key is one
 * `git init`, `git clone` or `git submodule add` writes, and `remote.<name>.url`,
 * `remote.<name>.pushurl` and `branch.<name>.remote` are such keys. Their value is the repository
 * host git reads or writes when the user runs `git fetch` or `git push` there: a local path (or a
 * `file://` URL) naming a host repository outside the workspace has the user's `git fetch` copy
 * its objects into the workspace, where the next sandboxed command prints them, and `git push`
 * write its refs. Held when such a config is moved aside (the user's git has no such remote).
 * Spellings: absolute, `file://`, relative climbing out, through a link in the workspace, the
 * `.git` suffix git tries (`plain` absent, `plain.git` a link out), a `branch.main.remote`
 * naming the path, a `pushurl` beside a network `url`, and `ext::`. Controls: under `local` the
 * same fetch and push reach the host repository; under `workspace` an https URL and an inside
 * path keep the config, and the user's `git fetch` from the inside remote works.
 */
import { mkdirSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

const ID = "-c user.email=a@example.com -c user.name=A";

/** How the command names the host repository `$H` in `sub`'s config (the workspace root is `$W`). */
type Spelling = "absolute" | "file-url" | "relative" | "link" | "git-suffix" | "branch-remote";

function fetchConfig(spelling: Spelling, workspace: string, host: string): string {
  const climb = quote(path.relative(path.join(workspace, "sub"), host));
  switch (spelling) {
    case "absolute":
      return 'git -C sub remote add origin "$H"';
    case "file-url":
      return 'git -C sub remote add origin "file://$H"';
    case "relative":
      return `git -C sub remote add origin ${climb}`;
    case "link":
      return 'ln -s "$H" hostrepo && git -C sub remote add origin "$W/hostrepo"';
    case "git-suffix":
      return 'ln -s "$H" plain.git && git -C sub remote add origin "$W/plain"';
    case "branch-remote":
      return 'git -C sub config branch.main.remote "$H" && git -C sub config branch.main.merge refs/heads/main';
  }
}

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 36 follow-up, a new repository's remote URL naming a host repository"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace repository and a host repository outside it holding `secret.txt` on `main`. */
    async function setting(tag: string) {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGitOutput(root, ["init", "-q", "-b", "main"]);
      const host = path.join(ground.outside, "hostrepo");
      mkdirSync(host);
      const secret = `r36b-host-secret-${process.pid}-${tag}`;
      hostGitOutput(host, ["init", "-q", "-b", "main"]);
      await writeFile(path.join(host, "secret.txt"), `${secret}\n`);
      hostGitOutput(host, ["add", "secret.txt"]);
      hostGitOutput(host, ["-c", "user.email=h@example.com", "-c", "user.name=H", "commit", "-q", "-m", "host"]);
      return { root, host, secret, run: (scope: "workspace" | "local") => attackRun(root, scope) };
    }

    /** The command sets the remote; the user fetches in `sub`; the next command prints what came. */
    async function fetchAttempt(scope: "workspace" | "local", spelling: Spelling) {
      const { root, host, secret, run } = await setting(spelling);
      const made = await sh(
        run(scope),
        `H=${quote(host)}; W=${quote(root)}; git init -q -b main sub && ${fetchConfig(spelling, root, host)} && echo made`,
      );
      expect(made.stdout, made.text).toContain("made");
      hostGitOutput(path.join(root, "sub"), spelling === "branch-remote" ? ["fetch", "-q"] : ["fetch", "-q", "origin"]);
      const shown = await sh(run(scope), "git -C sub show FETCH_HEAD:secret.txt 2>&1; echo shown");
      return { read: shown.stdout.includes(secret), text: made.text };
    }

    /** The command commits and sets a push URL; the user pushes `sub`; did a ref land in the host repository? */
    async function pushAttempt(scope: "workspace" | "local", config: string) {
      const { root, host, run } = await setting(`push-${config.length}`);
      const made = await sh(
        run(scope),
        `H=${quote(host)}; git init -q -b main sub && cd sub && echo planted > planted.txt && git add planted.txt && git ${ID} commit -q -m planted && ${config} && echo made`,
      );
      expect(made.stdout, made.text).toContain("made");
      hostGitOutput(path.join(root, "sub"), ["push", "-q", "origin", "HEAD:refs/heads/planted"]);
      const landed = hostGitOutput(host, ["rev-parse", "--verify", "-q", "refs/heads/planted"]).trim();
      return { wrote: /^[0-9a-f]{40}$/.test(landed), text: made.text };
    }

    escapeAttempt(
      "git-metadata",
      "remote URL of a repository the command made names a host repository (absolute, file://, relative, through a link, .git suffix, branch.<name>.remote): the user's git fetch copies it into the workspace",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["absolute", "file-url", "relative", "link", "git-suffix", "branch-remote"] as const) {
          const denied = await fetchAttempt("workspace", spelling);
          if (denied.read) escapes.push(`${spelling}: the host repository's file reached the next command`);
          if (!/\[moved aside sub\/\.git\/config/.test(denied.text)) escapes.push(`${spelling}: config kept`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the same fetch reaches the host repository.
        for (const spelling of ["absolute", "link"] as const) {
          const control = await fetchAttempt("local", spelling);
          expect(control.read, `${spelling}: control did not read: ${control.text}`).toBe(true);
        }
        // Control: an inside remote and an https URL keep the config; the user's fetch from inside works.
        const { root, run } = await setting("inside");
        const inside = quote(path.join(root, "src"));
        const kept = await sh(
          run("workspace"),
          [
            `git init -q -b main src && (cd src && echo inside > inside.txt && git add inside.txt && git ${ID} commit -q -m inside)`,
            `git init -q -b main sub && git -C sub remote add origin ${inside} && git -C sub remote add web https://example.com/r.git`,
            `git -C sub remote add file file://${inside} && git -C sub remote add scp git@example.com:o/r.git`,
            "echo made",
          ].join(" && "),
        );
        expect(kept.stdout, kept.text).toContain("made");
        expect(kept.text).not.toContain("[moved aside");
        hostGitOutput(path.join(root, "sub"), ["fetch", "-q", "origin"]);
        const shown = await sh(run("workspace"), "git -C sub show FETCH_HEAD:inside.txt 2>&1");
        expect(shown.stdout, shown.text).toContain("inside");
      },
      180_000,
    );

    escapeAttempt(
      "git-metadata",
      "push URL of a repository the command made names a host repository (url, pushurl beside an https url, ext::): the user's git push writes its refs",
      async () => {
        const escapes: string[] = [];
        const configs = [
          'git remote add origin "$H"',
          'git remote add origin https://example.com/r.git && git config remote.origin.pushurl "$H"',
          'git remote add origin "ext::git %S $H"',
        ];
        for (const config of configs) {
          const denied = await pushAttempt("workspace", config);
          if (denied.wrote) escapes.push(`${config}: the user's push wrote the host repository`);
          if (!/\[moved aside sub\/\.git\/config/.test(denied.text)) escapes.push(`${config}: config kept`);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the same push reaches the host repository.
        for (const config of configs.slice(0, 2)) {
          const control = await pushAttempt("local", config);
          expect(control.wrote, `${config}: control did not write: ${control.text}`).toBe(true);
        }
      },
      180_000,
    );

    escapeAttempt(
      "git-metadata",
      "a kept inside remote whose repository the next command replaces with a link to a host repository: the user's git fetch reads the host repository",
      async () => {
        const { root, host, secret, run } = await setting("relinked");
        const made = await sh(
          run("workspace"),
          `git init -q -b main sub && git -C sub remote add origin ${quote(path.join(root, "later"))} && echo made`,
        );
        expect(made.stdout, made.text).toContain("made");
        // Control: the inside remote (a place the command may fill later) is kept: no note.
        expect(made.text).not.toContain("[moved aside");
        // The next command (sub/.git now protected at spawn, its config read-only) makes `later` a
        // link to the host repository (a protected repository there could not be replaced: pinned).
        const relinked = await sh(run("workspace"), `ln -s ${quote(host)} later && echo relinked`);
        expect(relinked.stdout, relinked.text).toContain("relinked");
        expect(relinked.text).toMatch(
          /\[moved aside sub\/\.git\/config: the repository its remote\.<name>\.url names became a link out/,
        );
        hostGitOutput(path.join(root, "sub"), ["fetch", "-q", "origin"]);
        const shown = await sh(run("workspace"), "git -C sub show FETCH_HEAD:secret.txt 2>&1; echo shown");
        expect(shown.stdout).not.toContain(secret);
      },
      180_000,
    );
  },
);
