/**
 * Escape attempts through git state: a sandboxed command (bash, scope `workspace`) tries to make
 * the host's own git run a command or read another repository. The check is real: host git runs
 * afterwards (`git status`, `git commit`) and a marker file shows whether the planted command ran.
 * The control runs the same attack under scope `local` (which may write git metadata), where host
 * git does run it.
 */
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

async function repository(ground: Playground, setup: (root: string) => Promise<void> | void = () => undefined): Promise<string> {
  const root = ground.workspace;
  hostGitOutput(root, ["init", "-q", "-b", "main"]);
  hostGitOutput(root, ["config", "user.email", "a@example.com"]);
  hostGitOutput(root, ["config", "user.name", "A"]);
  await writeFile(path.join(root, "a.txt"), "a\n");
  hostGitOutput(root, ["add", "a.txt"]);
  hostGitOutput(root, ["commit", "-q", "-m", "init"]);
  await setup(root);
  return root;
}

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: git metadata"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  /**
   * Runs `attack` (a bash command; `$M` is the marker path) in a fresh repository under `scope`,
   * then `trigger` with host git, and says whether the marker appeared.
   */
  async function attempt(
    scope: "workspace" | "local",
    attack: string,
    trigger: readonly string[][] = [["status"]],
    setup?: (root: string) => Promise<void> | void,
  ): Promise<{ fired: boolean; root: string; stderr: string }> {
    const ground = await playground();
    grounds.push(ground);
    const root = await repository(ground, setup);
    const marker = path.join(ground.outside, "fired");
    const result = await sh(attackRun(root, scope), `M=${quote(marker)}; ${attack}`);
    for (const args of trigger) hostGitOutput(root, args);
    return { fired: existsSync(marker), root, stderr: result.stderr };
  }

  async function both(
    attack: string,
    trigger?: readonly string[][],
    setup?: (root: string) => Promise<void> | void,
  ): Promise<void> {
    const denied = await attempt("workspace", attack, trigger, setup);
    expect(denied.fired, `escaped: ${denied.stderr}`).toBe(false);
    const control = await attempt("local", attack, trigger, setup);
    expect(control.fired, `control did not fire: ${control.stderr}`).toBe(true);
  }

  /** A shell command printing a config section whose fsmonitor touches the marker `$M`. */
  const FSMONITOR = `printf '[core]\\n\\tfsmonitor = "touch %s; echo"\\n' "$M"`;

  escapeAttempt("git-metadata", "git config core.fsmonitor (host git status runs it)", async () => {
    await both(`git config core.fsmonitor "touch $M; echo"`);
  });

  escapeAttempt("git-metadata", "append an fsmonitor section to .git/config", async () => {
    await both(`${FSMONITOR} >> .git/config`);
  });

  escapeAttempt("git-metadata", "rename a doctored copy over .git/config", async () => {
    await both(`cp .git/config cfg && ${FSMONITOR} >> cfg && mv -f cfg .git/config`);
  });

  escapeAttempt("git-metadata", "create .git/config.worktree where extensions.worktreeConfig is on", async () => {
    await both(`${FSMONITOR} > .git/config.worktree`, [["status"]], (root) => {
      hostGitOutput(root, ["config", "extensions.worktreeConfig", "true"]);
    });
  });

  escapeAttempt("git-metadata", "write .git/commondir to a copied git dir with core.fsmonitor", async () => {
    await both(`cp -r .git evil && ${FSMONITOR} >> evil/config && echo "$PWD/evil" > .git/commondir`);
  });

  escapeAttempt("git-metadata", "swap the .git directory for a gitdir: file", async () => {
    await both(`cp -r .git evil && ${FSMONITOR} >> evil/config && mv .git .git-old && echo "gitdir: $PWD/evil" > .git`);
  });

  escapeAttempt("git-metadata", "plant a pre-commit hook (host git commit runs it)", async () => {
    await both(`printf '#!/bin/sh\\ntouch "%s"\\n' "$M" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`, [
      ["commit", "-q", "--allow-empty", "-m", "x"],
    ]);
  });

  escapeAttempt("git-metadata", "replace .git/hooks by a new directory", async () => {
    await both(
      `mv .git/hooks .git/hooks-old; mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch "%s"\\n' "$M" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
      [["commit", "-q", "--allow-empty", "-m", "x"]],
    );
  });

  escapeAttempt("git-metadata", "replace .git/hooks by a symlink to a planted directory", async () => {
    await both(
      `mkdir -p myhooks && printf '#!/bin/sh\\ntouch "%s"\\n' "$M" > myhooks/pre-commit && chmod +x myhooks/pre-commit && rm -rf .git/hooks; ln -sfn "$PWD/myhooks" .git/hooks`,
      [["commit", "-q", "--allow-empty", "-m", "x"]],
    );
  });

  escapeAttempt("git-metadata", "git config include.path to a workspace file with core.hooksPath", async () => {
    await both(
      `mkdir -p myhooks && printf '#!/bin/sh\\ntouch "%s"\\n' "$M" > myhooks/pre-commit && chmod +x myhooks/pre-commit && printf '[core]\\n\\thooksPath = %s\\n' "$PWD/myhooks" > inc.cfg && git config include.path "$PWD/inc.cfg"`,
      [["commit", "-q", "--allow-empty", "-m", "x"]],
    );
  });

  escapeAttempt("git-metadata", "write objects/info/alternates to read another object store", async () => {
    const denied = await attempt("workspace", `mkdir -p other && echo "$PWD/other" > .git/objects/info/alternates`);
    expect(existsSync(path.join(denied.root, ".git", "objects", "info", "alternates"))).toBe(false);
    const control = await attempt("local", `mkdir -p other && echo "$PWD/other" > .git/objects/info/alternates`);
    expect(existsSync(path.join(control.root, ".git", "objects", "info", "alternates"))).toBe(true);
  });

  escapeAttempt("git-metadata", "write .git/info/attributes", async () => {
    const denied = await attempt("workspace", "echo '* filter=evil' > .git/info/attributes");
    expect(existsSync(path.join(denied.root, ".git", "info", "attributes"))).toBe(false);
    const control = await attempt("local", "echo '* filter=evil' > .git/info/attributes");
    expect(existsSync(path.join(control.root, ".git", "info", "attributes"))).toBe(true);
  });

  escapeAttempt("git-metadata", "core.fsmonitor in a nested repository present at spawn", async () => {
    const setup = async (root: string) => {
      await mkdir(path.join(root, "vendor", "lib"), { recursive: true });
      hostGitOutput(path.join(root, "vendor", "lib"), ["init", "-q"]);
    };
    await both(`git -C vendor/lib config core.fsmonitor "touch $M; echo"`, [["-C", "vendor/lib", "status"]], setup);
  });

  escapeAttempt("git-metadata", "config of a submodule git directory (.git/modules/lib)", async () => {
    const setup = async (root: string) => {
      await mkdir(path.join(root, ".git", "modules"), { recursive: true });
      hostGitOutput(root, ["init", "-q", "--bare", path.join(root, ".git", "modules", "lib")]);
      await mkdir(path.join(root, "lib"));
      await writeFile(path.join(root, "lib", ".git"), "gitdir: ../.git/modules/lib\n");
      hostGitOutput(path.join(root, ".git", "modules", "lib"), ["config", "core.bare", "false"]);
      hostGitOutput(path.join(root, ".git", "modules", "lib"), ["config", "core.worktree", "../../../lib"]);
    };
    await both(`${FSMONITOR} >> .git/modules/lib/config`, [["-C", "lib", "status"]], setup);
  });

  escapeAttempt("git-metadata", "redirect a linked worktree's .git file and gitdir", async () => {
    const setup = (root: string) => {
      hostGitOutput(root, ["worktree", "add", "-q", "wt", "-b", "side"]);
    };
    const attack = `cp -r .git evil && ${FSMONITOR} >> evil/config && echo "gitdir: $PWD/evil" > wt/.git`;
    await both(attack, [["-C", "wt", "status"]], setup);
  });

  escapeAttempt("git-metadata", "a separate git directory inside the workspace (git init --separate-git-dir)", async () => {
    // The workspace's .git is a file naming ./.realgit: its config is git state as much as .git/config.
    const setup = async (root: string) => {
      hostGitOutput(root, ["init", "-q", "--separate-git-dir", path.join(root, ".realgit")]);
    };
    await both(`${FSMONITOR} >> .realgit/config`, [["status"]], setup);
  });

  escapeAttempt("git-metadata", "a bare repository in the workspace (the host runs git -C on it)", async () => {
    const setup = async (root: string) => {
      hostGitOutput(root, ["init", "-q", "--bare", path.join(root, "mirror.git")]);
    };
    const attack = `printf '#!/bin/sh\\ntouch "%s"\\n' "$M" > mirror.git/hooks/pre-receive; chmod +x mirror.git/hooks/pre-receive; git -C mirror.git config core.fsmonitor "touch $M; echo"; ${FSMONITOR} >> mirror.git/config`;
    await both(
      attack,
      [
        ["-C", "mirror.git", "config", "--get", "core.bare"],
        ["--git-dir", "mirror.git", "--work-tree", ".", "status"],
      ],
      setup,
    );
  });
});
