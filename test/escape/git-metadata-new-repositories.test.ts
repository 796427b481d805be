/**
 * Git directories a command creates during the call (a nested repository, a submodule's git
 * directory under `.git/modules/`) are not protected by the spawn's scan, which only knows what
 * existed when the command started: the command plants hooks or a `core.fsmonitor` in them, and
 * host git (the user's, or a tool's) run there later runs them. After the command the host finds
 * such git directories (through handles held since spawn) and moves aside their hooks, a config
 * holding more than `git init`/`git clone` write, and `commondir`. The check is real: host git
 * runs in the new repository afterwards and a marker outside the workspace shows whether the
 * planted command ran; under scope `local` (no git protection) the same attack does fire.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { monitorToolGroup } from "../../src/host/index.js";
import { FixtureRepository, git as fixtureGit, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { hostRun, record } from "../host/support/host-test-kit.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { callGitTools, gitToolCalls } from "./support/git-tool-calls.js";
import { hostGitOutput } from "./support/host-git.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** Identity for commits made inside the sandbox (no global config there). */
const ID = "-c user.email=a@example.com -c user.name=A";
/** A hook script touching the marker `$M`. */
const HOOK = `printf '#!/bin/sh\\ntouch "%s"\\n' "$M"`;

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: git directories a command creates"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  async function attempt(scope: "workspace" | "local", attack: string, trigger: readonly string[][]) {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    hostGitOutput(root, ["init", "-q", "-b", "main"]);
    await writeFile(path.join(root, "a.txt"), "a\n");
    const marker = path.join(ground.outside, "fired");
    const result = await sh(attackRun(root, scope), `M=${quote(marker)}; ${attack} && echo planted`);
    expect(result.stdout, result.text).toContain("planted");
    for (const args of trigger) hostGitOutput(root, args);
    return { fired: existsSync(marker), root, text: result.text };
  }

  async function both(attack: string, trigger: readonly string[][]) {
    const denied = await attempt("workspace", attack, trigger);
    expect(denied.fired, `escaped: ${denied.text}`).toBe(false);
    const control = await attempt("local", attack, trigger);
    expect(control.fired, `control did not fire: ${control.text}`).toBe(true);
    return denied;
  }

  escapeAttempt("git-metadata", "git init a nested repository and set its core.fsmonitor", async () => {
    const denied = await both(`git init -q sub && git -C sub config core.fsmonitor "touch $M; echo"`, [["-C", "sub", "status"]]);
    expect(denied.text).toContain("[moved aside sub/.git/config of a git directory the command created");
    // The documented restore names the moved file.
    const moved = /mv '(sub\/\.git\/atc-quarantine-config-[0-9TZ-]+)' 'sub\/\.git\/config'/.exec(denied.text)?.[1];
    expect(readFileSync(path.join(denied.root, moved ?? "missing"), "utf8")).toContain("fsmonitor");
  });

  escapeAttempt("git-metadata", "git init a nested repository deep in the tree and plant a post-checkout hook", async () => {
    await both(
      `git init -q a/b/sub && ${HOOK} > a/b/sub/.git/hooks/post-checkout && chmod +x a/b/sub/.git/hooks/post-checkout && git -C a/b/sub ${ID} commit -q --allow-empty -m x`,
      [["-C", "a/b/sub", "checkout", "-q", "-b", "other"]],
    );
  });

  escapeAttempt("git-metadata", "a new submodule git directory under .git/modules with an fsmonitor", async () => {
    const attack = [
      "mkdir lib",
      "git init -q --bare .git/modules/lib",
      "git --git-dir=.git/modules/lib config core.bare false",
      "git --git-dir=.git/modules/lib config core.worktree ../../../lib",
      `git --git-dir=.git/modules/lib config core.fsmonitor "touch $M; echo"`,
      "echo 'gitdir: ../.git/modules/lib' > lib/.git",
    ].join(" && ");
    await both(attack, [["-C", "lib", "status"]]);
  });

  escapeAttempt("git-metadata", "a nested repository whose config includes a planted file", async () => {
    await both(
      `git init -q sub && printf '[core]\\n\\tfsmonitor = "touch %s; echo"\\n' "$M" > evil.cfg && git -C sub config include.path ../../evil.cfg`,
      [["-C", "sub", "status"]],
    );
  });

  /** A bare git directory `dir` made a working tree's (`wt/.git` points at it), `head` run after `git init`, with a planted fsmonitor. */
  const oddRepository = (dir: string, head: string) =>
    `mkdir wt && git init -q --bare ${dir} && ${head} && git --git-dir=${dir} config core.bare false && git --git-dir=${dir} config core.worktree ../wt && git --git-dir=${dir} config core.fsmonitor "touch $M; echo" && echo 'gitdir: ../${dir}' > wt/.git`;

  // git's validate_headref accepts `ref:` with any spaces (or none) before `refs/`, and a symlink HEAD.
  for (const [name, head] of [
    ["ref:refs/... without a space", "printf 'ref:refs/heads/main\\n' > odd/HEAD"],
    ["ref:<tab>refs/...", "printf 'ref:\\trefs/heads/main\\n' > odd/HEAD"],
    ["a symlink to refs/heads/main", "rm odd/HEAD && ln -s refs/heads/main odd/HEAD"],
  ] as const) {
    escapeAttempt("git-metadata", `a new git directory whose HEAD is ${name}, with an fsmonitor`, async () => {
      const denied = await both(oddRepository("odd", head), [["-C", "wt", "status"]]);
      expect(denied.text).toContain("[moved aside odd/config");
    });
  }

  escapeAttempt(
    "git-metadata",
    "a git directory present at spawn whose HEAD is ref:refs/... has its config kept read-only",
    async () => {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGitOutput(root, ["init", "-q", "--bare", "odd"]);
      writeFileSync(path.join(root, "odd", "HEAD"), "ref:refs/heads/main\n");
      // Control: host git accepts that HEAD (the directory is a repository to it).
      expect(hostGitOutput(root, ["--git-dir=odd", "rev-parse", "--git-dir"]).trim()).toBe("odd");
      const result = await sh(
        attackRun(root, "workspace"),
        `git --git-dir=odd config core.fsmonitor "touch x; echo" && echo written`,
      );
      expect(result.stdout, result.text).not.toContain("written");
      expect(readFileSync(path.join(root, "odd", "config"), "utf8")).not.toContain("fsmonitor");
      // The scan knew it at spawn: nothing to move aside after.
      expect(result.text).not.toContain("moved aside");
    },
  );

  escapeAttempt(
    "git-metadata",
    "a git directory present at spawn whose HEAD is a symlink: refused, since a mount cannot pin it",
    async () => {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGitOutput(root, ["init", "-q", "--bare", "odd"]);
      // Control: the same run's sandbox starts commands while HEAD is a file (so the refusal
      // below comes from the spawn, after the sandbox was probed, not from the probe).
      const run = attackRun(root, "workspace");
      expect((await sh(run, "echo started")).stdout).toBe("started");
      rmSync(path.join(root, "odd", "HEAD"));
      symlinkSync("refs/heads/main", path.join(root, "odd", "HEAD"));
      // Control: host git accepts that HEAD.
      expect(hostGitOutput(root, ["--git-dir=odd", "rev-parse", "--git-dir"]).trim()).toBe("odd");
      const result = await sh(run, `git --git-dir=odd config core.fsmonitor "touch x; echo" && echo written`);
      expect(result.stdout, result.text).not.toContain("written");
      // Refused before it runs, saying why, as the sandbox's refusal (not a tool failure).
      expect(result.status, result.text).toBe("error:sandbox_unavailable");
      expect(result.text).toContain("symbolic link git accepts as HEAD");
      expect(readFileSync(path.join(root, "odd", "config"), "utf8")).not.toContain("fsmonitor");
    },
  );

  it("monitor gives the same refusal as bash for a symlink HEAD found at spawn: sandbox_unavailable", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    hostGitOutput(root, ["init", "-q", "--bare", "odd"]);
    const { run } = hostRun([monitorToolGroup({})], { permissions: { sandbox: "workspace", workspace: root } });
    // Control: the monitor starts a command while HEAD is a file.
    const started = record(await run.call("monitor", { action: "start", command: "echo started" }));
    expect(started.id).toBe("mon_1");
    rmSync(path.join(root, "odd", "HEAD"));
    symlinkSync("refs/heads/main", path.join(root, "odd", "HEAD"));
    const refused = await run.call("monitor", { action: "start", command: "echo again" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.error.code, refused.error.message).toBe("sandbox_unavailable");
      expect(refused.error.message).toContain("symbolic link git accepts as HEAD");
    }
    await run.close();
  });

  // The walk's bounds (depth, node_modules) do not stop a git directory a `.git` pointer names.
  const pointed = (dir: string, pointer: string) =>
    `mkdir sub && git init -q --bare ${dir} && git --git-dir=${dir} config core.bare false && git --git-dir=${dir} config core.worktree "$PWD/sub" && git --git-dir=${dir} config core.fsmonitor "touch $M; echo" && ${pointer}`;
  for (const [name, attack] of [
    ["a .git file pointing into node_modules", pointed("node_modules/.x", "echo 'gitdir: ../node_modules/.x' > sub/.git")],
    ["a .git symlink pointing into node_modules", pointed("node_modules/.x", "ln -s ../node_modules/.x sub/.git")],
    ["a .git file pointing below the walk's depth", pointed("a/b/c/d/e/f/g/h", "echo 'gitdir: ../a/b/c/d/e/f/g/h' > sub/.git")],
  ] as const) {
    escapeAttempt("git-metadata", `${name}, at a new git directory with an fsmonitor`, async () => {
      const denied = await both(attack, [["-C", "sub", "status"]]);
      expect(denied.text).toContain("/config of a git directory the command created");
    });
  }

  it("a repository the gitlink quarantine moved aside is not moved apart again: the one mv restores a working repository", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    hostGitOutput(root, ["init", "-q", "-b", "main"]);
    const result = await sh(
      attackRun(root, "workspace"),
      `git init -q sub && git -C sub config core.fsmonitor "touch x; echo" && git -C sub ${ID} commit -q --allow-empty -m x && git add sub && echo planted`,
    );
    expect(result.stdout, result.text).toContain("planted");
    expect(result.text).toContain("[moved aside a git repository at a gitlink");
    expect(result.text).not.toContain("of a git directory the command created");
    const restore = /then from the workspace root: (mv '[^']+' '[^']+')\]/.exec(result.text)?.[1];
    expect(restore, result.text).toBeDefined();
    execFileSync("sh", ["-c", restore ?? "false"], { cwd: root });
    // Restored whole: the repository works, with the config the user was told to review.
    expect(hostGitOutput(path.join(root, "sub"), ["log", "--format=%s"]).trim()).toBe("x");
    expect(hostGitOutput(path.join(root, "sub"), ["config", "core.fsmonitor"]).trim()).toBe("touch x; echo");
  });

  escapeAttempt("git-metadata", "rewrite a moved-aside config at the next command, for the user's mv to restore", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    hostGitOutput(root, ["init", "-q"]);
    const marker = path.join(ground.outside, "fired");
    const run = attackRun(root, "workspace");
    const first = await sh(run, `git init -q proj && git -C proj config core.fsmonitor true && echo made`);
    expect(first.text).toContain("[moved aside proj/.git/config");
    const restore = /then from the workspace root: (mv '[^']+' '[^']+')\]/.exec(first.text)?.[1];
    const moved = /mv '([^']+)'/.exec(restore ?? "")?.[1] ?? "missing";
    const second = await sh(
      run,
      `printf '[core]\\n\\tfsmonitor = "touch %s; echo"\\n' ${quote(marker)} >> ${quote(moved)} && echo rewrote; rm -f ${quote(moved)} && echo removed; cat ${quote(moved)}`,
    );
    expect(second.stdout, second.text).not.toContain("rewrote");
    expect(second.stdout, second.text).not.toContain("removed");
    // Positive control: the sandboxed command can read it, and it is what the first command left.
    expect(second.stdout).toContain("fsmonitor = true");
    execFileSync("sh", ["-c", `${restore} && git -C proj status`], { cwd: root, stdio: "ignore" });
    expect(existsSync(marker)).toBe(false);
  });

  it("positive control: git config user.*, git submodule add and clone --recurse-submodules keep the new repositories' config", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    const result = await sh(
      attackRun(root, "workspace"),
      [
        "git init -q proj && git -C proj config user.email a@b.c && git -C proj config user.name A",
        `git init -q lib && git -C lib ${ID} commit -q --allow-empty -m l`,
        `git init -q sup && git -C sup -c protocol.file.allow=always submodule add -q ../lib lib && git -C sup ${ID} commit -qm s`,
        "git -c protocol.file.allow=always clone -q --recurse-submodules sup copy && echo done",
      ].join(" && "),
    );
    expect(result.stdout, result.text).toBe("done");
    expect(result.text).not.toContain("moved aside");
    expect(hostGitOutput(path.join(root, "proj"), ["config", "user.name"]).trim()).toBe("A");
    expect(hostGitOutput(path.join(root, "sup"), ["config", "submodule.lib.url"]).trim()).toContain("lib");
  });

  escapeAttempt("git-metadata", "a new repository whose submodule.<name>.update runs a command", async () => {
    const denied = await both(
      `git init -q lib && git -C lib ${ID} commit -q --allow-empty -m l && git init -q sup && git -C sup -c protocol.file.allow=always submodule add -q ../lib lib && git -C sup ${ID} commit -qm s && git -C lib ${ID} commit -q --allow-empty -m l2 && git -C sup config submodule.lib.update "!touch $M #"`,
      [["-C", "sup", "-c", "protocol.file.allow=always", "submodule", "update", "--remote"]],
    );
    expect(denied.text).toContain("[moved aside sup/.git/config");
  });

  it("a link the command leaves to a host repository is not followed: the host's hooks and config stay", async () => {
    const ground = await playground();
    grounds.push(ground);
    const host = path.join(ground.outside, "hostrepo");
    mkdirSync(host, { recursive: true });
    hostGitOutput(host, ["init", "-q"]);
    hostGitOutput(host, ["config", "core.pager", "less"]);
    writeFileSync(path.join(host, ".git", "hooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
    const result = await sh(
      attackRun(ground.workspace, "workspace"),
      `ln -s ${quote(host)} linked && ln -s ${quote(path.join(host, ".git"))} .git && echo linked`,
    );
    expect(result.stdout, result.text).toBe("linked");
    // Round 41: the `.git` link itself is moved aside (host git in the workspace would use the host
    // repository); nothing of the host repository is moved.
    // Round 43: its note says what it pointed to, as the command wrote it.
    expect(result.text).toContain(`[moved aside .git: a pointer to ${JSON.stringify(path.join(host, ".git"))}`);
    expect(result.text.match(/\[moved aside/g)).toHaveLength(1);
    expect(existsSync(path.join(host, ".git", "hooks", "pre-commit"))).toBe(true);
    expect(hostGitOutput(host, ["config", "core.pager"]).trim()).toBe("less");
  });

  it("positive control: a repository the command clones or inits and commits in keeps its config and works", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    const result = await sh(
      attackRun(root, "workspace"),
      `git init -q -b main src && cd src && echo x > f && git add f && git ${ID} commit -qm first && cd .. && git clone -q src copy && git -C copy log --format=%s`,
    );
    expect(result.stdout, result.text).toBe("first");
    expect(result.text).not.toContain("moved aside");
    expect(hostGitOutput(path.join(root, "copy"), ["config", "remote.origin.url"]).trim()).toContain("src");
    expect(hostGitOutput(path.join(root, "copy"), ["log", "--format=%s"]).trim()).toBe("first");
  });
});

describe.skipIf(git.missing)(git.label("the library's git tools in a nested repository with planted hooks and config"), () => {
  escapeAttempt(
    "git-metadata",
    "git tools in a repository whose fsmonitor, hooks, filters and textconv run a command",
    async () => {
      const scratch = temporaryDirectory("escape-git-new-repo");
      try {
        const marker = path.join(scratch, "fired");
        const repository = path.join(scratch, "workspace", "vendor", "lib");
        mkdirSync(repository, { recursive: true });
        fixtureGit(repository, ["init", "-q"]);
        const fixture = new FixtureRepository(repository);
        fixture.write("secret.txt", "first\n").commit("first", { name: "A", email: "a@example.com" });
        fixture.write("secret.txt", "needle\n").commit("add needle", { name: "A", email: "a@example.com" });
        const touch = `touch ${quote(marker)}`;
        for (const [key, value] of [
          ["core.fsmonitor", `${touch}; echo`],
          ["filter.evil.smudge", `${touch}; cat`],
          ["filter.evil.clean", `${touch}; cat`],
          ["diff.evil.textconv", `sh -c '${touch}; cat "$1"' -`],
          ["core.pager", `${touch}; cat`],
        ] as const)
          fixtureGit(repository, ["config", key, value]);
        writeFileSync(path.join(repository, ".git", "info", "attributes"), "* filter=evil diff=evil\n");
        for (const hook of ["post-checkout", "pre-commit", "post-index-change", "reference-transaction"]) {
          writeFileSync(path.join(repository, ".git", "hooks", hook), `#!/bin/sh\n${touch}\n`);
          chmodSync(path.join(repository, ".git", "hooks", hook), 0o755);
        }
        for (const scope of ["workspace", "unrestricted"] as const) {
          for (const workspace of [repository, path.join(scratch, "workspace")]) {
            const answers = await callGitTools(workspace, scope, gitToolCalls("needle", "secret.txt"));
            if (workspace === repository) expect(answers.filter((answer) => answer.result.ok).length, scope).toBe(5);
          }
        }
        expect(existsSync(marker)).toBe(false);
        // Control: host git in the same repository runs the planted command.
        hostGitOutput(repository, ["status"]);
        expect(existsSync(marker)).toBe(true);
      } finally {
        removeDirectory(scratch);
      }
    },
  );
});
