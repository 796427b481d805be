/**
 * Escape attempts through gitlinks (round 18): host `git status` in a protected repository runs
 * git in every gitlink's directory that holds a `.git`, with that repository's own config, and
 * the index listing the gitlinks is the command's to write. A command (bash, scope `workspace`)
 * makes or reaches such a repository whose `core.fsmonitor` touches a marker outside; host git
 * runs afterwards. The control runs the same attack under scope `local`, where it fires.
 */
import { execFileSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { longestHold } from "../support/event-loop-hold.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, type ShellOutcome, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

const IDENTITY = ["-c", "user.email=a@example.com", "-c", "user.name=A"];

function hostGit(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync("git", [...IDENTITY, ...args], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 20_000,
    });
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
}

/** A repository with one commit in `directory`. */
async function repository(directory: string): Promise<void> {
  await mkdir(directory, { recursive: true });
  hostGit(directory, ["init", "-q", "-b", "main"]);
  await writeFile(path.join(directory, "a.txt"), "a\n");
  hostGit(directory, ["add", "a.txt"]);
  hostGit(directory, ["commit", "-q", "-m", "init"]);
}

/** Records `directory` (relative) as a gitlink of the repository at `root`, at `commit`. */
function gitlink(root: string, relative: string, commit: string): void {
  hostGit(root, ["update-index", "--add", "--cacheinfo", `160000,${commit},${relative}`]);
  hostGit(root, ["commit", "-q", "-m", `gitlink ${relative}`]);
}

/** Shell: environment for commits inside the sandbox, and a repository `$1` whose fsmonitor touches `$M`. */
const EVIL_REPOSITORY =
  "export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b; " +
  'evil() { mkdir -p "$1" && git -C "$1" init -q && git -C "$1" config core.fsmonitor "touch $M; false" && ' +
  'echo x > "$1/f" && git -C "$1" add f && git -C "$1" commit -qm e; }; ';

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: git repositories at gitlinks"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  async function attempt(
    scope: "workspace" | "local",
    attack: string,
    setup: (root: string) => Promise<void> | void = () => undefined,
  ): Promise<{ fired: boolean; root: string; result: ShellOutcome }> {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    await repository(root);
    await setup(root);
    const marker = path.join(ground.outside, "fired");
    const result = await sh(attackRun(root, scope), `M=${quote(marker)}; ${EVIL_REPOSITORY}${attack}`);
    hostGit(root, ["status"]);
    return { fired: existsSync(marker), root, result };
  }

  async function both(attack: string, setup?: (root: string) => Promise<void> | void): Promise<ShellOutcome> {
    const denied = await attempt("workspace", attack, setup);
    expect(denied.fired, `escaped: ${denied.result.text}`).toBe(false);
    const control = await attempt("local", attack, setup);
    expect(control.fired, `control did not fire: ${control.result.text}`).toBe(true);
    return denied.result;
  }

  escapeAttempt(
    "git-metadata",
    "a new repository added as a gitlink (git add sub; host git status enters it)",
    async () => {
      const denied = await both("evil sub && git add sub 2>/dev/null && git status --short");
      expect(denied.text).toContain("[moved aside a git repository at a gitlink");
      expect(denied.text).toContain("mv 'sub/atc-quarantine-.git-");
    },
    30_000,
  );

  escapeAttempt(
    "git-metadata",
    "a repository made in an uninitialised submodule's empty directory",
    async () => {
      await both("evil lib", async (root) => {
        await mkdir(path.join(root, "lib"));
        gitlink(root, "lib", hostGit(root, ["rev-parse", "HEAD"]).trim());
      });
    },
    30_000,
  );

  escapeAttempt(
    "git-metadata",
    "the config of a gitlinked checkout below the scan's depth (7 levels)",
    async () => {
      await both('git -C a/b/c/d/e/f/g config core.fsmonitor "touch $M; false"', async (root) => {
        const deep = path.join(root, "a/b/c/d/e/f/g");
        await repository(deep);
        gitlink(root, "a/b/c/d/e/f/g", hostGit(deep, ["rev-parse", "HEAD"]).trim());
      });
    },
    30_000,
  );

  escapeAttempt(
    "git-metadata",
    "the config of a gitlinked checkout in node_modules (which the scan skips)",
    async () => {
      await both('git -C node_modules/pkg config core.fsmonitor "touch $M; false"', async (root) => {
        const pkg = path.join(root, "node_modules/pkg");
        await repository(pkg);
        gitlink(root, "node_modules/pkg", hostGit(pkg, ["rev-parse", "HEAD"]).trim());
      });
    },
    30_000,
  );

  escapeAttempt(
    "git-metadata",
    "move a protected gitlinked checkout away and make a new repository at its name",
    async () => {
      await both("mv sub sub-old && evil sub", async (root) => {
        const sub = path.join(root, "sub");
        await repository(sub);
        gitlink(root, "sub", hostGit(sub, ["rev-parse", "HEAD"]).trim());
      });
    },
    30_000,
  );

  escapeAttempt(
    "git-metadata",
    "an index replaced by a link to one listing a new repository as a gitlink",
    async () => {
      await both(
        "evil sub && cp .git/index saved && GIT_INDEX_FILE=planted git add sub 2>/dev/null && rm .git/index && ln -s ../planted .git/index",
      );
    },
    30_000,
  );

  it("a gitlinked checkout present at spawn stays in place and host git status still enters it", async () => {
    const ground = await playground();
    grounds.push(ground);
    const root = ground.workspace;
    await repository(root);
    const sub = path.join(root, "sub");
    await repository(sub);
    gitlink(root, "sub", hostGit(sub, ["rev-parse", "HEAD"]).trim());
    const before = lstatSync(path.join(sub, ".git")).ino;
    const result = await sh(attackRun(root, "workspace"), "echo changed > sub/a.txt; git status --short");
    expect(result.text).not.toContain("moved aside");
    expect(lstatSync(path.join(sub, ".git")).ino).toBe(before);
    expect(hostGit(root, ["status", "--short"])).toContain("m sub");
  }, 30_000);
});

describe.skipIf(bubblewrap.missing || git.missing)(bubblewrap.label("escape attempts: hostile gitlink indexes"), () => {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });

  escapeAttempt(
    "resources",
    "an index of 2,000 gitlinks 1,000 levels down, and one of a 5,000-byte path: spawns stay cheap and run, the index is moved aside",
    async () => {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      await repository(root);
      const commit = hostGit(root, ["rev-parse", "HEAD"]).trim();
      let planted = await sh(
        attackRun(root, "workspace"),
        // 1,000 nested directories (2,000 bytes), 2,000 gitlinks at its bottom, one gitlink too long to look up.
        `deep=$(printf 'd/%.0s' $(seq 1000)); mkdir -p "$deep"; ` +
          `{ awk -v d="$deep" 'BEGIN { for (i = 1; i <= 2000; i++) printf "160000 ${commit}\\t%sg%d\\n", d, i }'; ` +
          `printf '160000 ${commit}\\t%s\\n' "$(printf 'x%.0s' $(seq 5000))"; } | git update-index --index-info && ` +
          "git ls-files -s | grep -c ^160000",
      );
      // Control: the planted index is real and lists every gitlink.
      expect(planted.stdout.trim()).toBe("2001");
      // The loop's longest hold: a 10 ms timer's wall time between ticks less this thread's wait
      // for a CPU (test/support/event-loop-hold.ts). In wall time alone it read the load: 6.1 s at
      // load 38 (2 cores, 8 busy loops beside).
      const { longestMs, longestRanMs } = await longestHold(async () => {
        const run = attackRun(root, "workspace");
        for (let call = 0; call < 2; call++) {
          // Moved aside after each command (too many gitlinks to look at): put back, as the note says, so the next spawn reads it.
          const moved = /mv '(\.git\/atc-quarantine-index-[^']+)' '\.git\/index'/.exec(planted.text)?.[1];
          expect(moved, planted.text).toBeDefined();
          expect(existsSync(path.join(root, ".git", "index"))).toBe(false);
          await rename(path.join(root, moved as string), path.join(root, ".git", "index"));
          planted = await sh(run, "echo ran");
          expect(planted.stdout.trim()).toBe("ran");
        }
      }, 10);
      expect(longestMs, `the host's event loop stalled (${Math.round(longestRanMs)} ms of it running)`).toBeLessThan(1_500);
    },
    60_000,
  );
});
