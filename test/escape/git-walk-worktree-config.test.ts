/**
 * `config.worktree`: git reads it in a worktree's own git directory (`.git/worktrees/<name>/`)
 * when the repository has `extensions.worktreeConfig` (set by `git sparse-checkout`, common with
 * worktrees). A command could make a new worktree git directory whose `config.worktree` sets
 * `core.fsmonitor`, and reach it from a gitlink's `.git` file: the gitlink quarantine judged that
 * `.git` inert (no config, no hooks, its `commondir` the protected repository) and kept it, so the
 * user's next host `git status` ran the command's program (review of stop 40). Without a gitlink,
 * a worktree checkout's `.git` file reached it the same way, and nothing looked under
 * `.git/worktrees/` for new git directories at all.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGit } from "./support/host-git.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** Plants `.git/worktrees/evil` (HEAD, commondir, a config.worktree that runs `touch $M`). */
const PLANT_WORKTREE = [
  "W=.git/worktrees/evil; mkdir -p $W && echo ../.. > $W/commondir && git rev-parse HEAD > $W/HEAD",
  `printf '[core]\\n\\tfsmonitor = touch %s; false\\n' "$M" > $W/config.worktree`,
].join(" && ");

/** Reaches it from a gitlink `sub` whose `.git` file names it. */
const THROUGH_GITLINK =
  "mkdir sub && echo 'gitdir: ../.git/worktrees/evil' > sub/.git && git update-index --add --cacheinfo 160000,$(git rev-parse HEAD),sub";

/** Reaches it from a worktree checkout `wt` (as `git worktree add` lays one out). */
const THROUGH_CHECKOUT =
  "mkdir wt && echo 'gitdir: ../.git/worktrees/evil' > wt/.git && echo \"$PWD/wt/.git\" > .git/worktrees/evil/gitdir";

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("a config.worktree a command plants in a new worktree git directory"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace repository with `extensions.worktreeConfig`, and a marker path outside. */
    async function setup(): Promise<{ root: string; marker: string }> {
      const ground = await playground();
      grounds.push(ground);
      const root = ground.workspace;
      hostGit(root, ["init", "-q", "-b", "main"]);
      hostGit(root, ["config", "extensions.worktreeConfig", "true"]);
      writeFileSync(path.join(root, "a.txt"), "a\n");
      hostGit(root, ["add", "a.txt"]);
      hostGit(root, ["commit", "-q", "-m", "a"]);
      return { root, marker: path.join(ground.outside, "fired") };
    }

    it("positive control: the same plant made on the host runs the program at host git status", async () => {
      for (const reach of [THROUGH_GITLINK, THROUGH_CHECKOUT]) {
        const { root, marker } = await setup();
        execFileSync("sh", ["-c", `M=${quote(marker)}; ${PLANT_WORKTREE} && ${reach}`], { cwd: root });
        const where = reach === THROUGH_GITLINK ? root : path.join(root, "wt");
        try {
          hostGit(where, ["status", "--short"]);
        } catch {
          // git may complain after running the monitor; what counts is the marker.
        }
        expect(existsSync(marker), reach).toBe(true);
      }
    }, 60_000);

    escapeAttempt(
      "git-metadata",
      "a new worktree git directory's config.worktree, reached through a gitlink's .git file: not run by host git status",
      async () => {
        const { root, marker } = await setup();
        const result = await sh(
          attackRun(root, "workspace"),
          `M=${quote(marker)}; ${PLANT_WORKTREE} && ${THROUGH_GITLINK} && echo planted`,
        );
        expect(result.stdout, result.text).toContain("planted");
        expect(result.text).toContain("moved aside");
        try {
          hostGit(root, ["status", "--short"]);
        } catch {
          // A moved `.git` can leave git complaining; only the marker matters.
        }
        expect(existsSync(marker)).toBe(false);
      },
      60_000,
    );

    escapeAttempt(
      "git-metadata",
      "a new worktree git directory's config.worktree, reached from a worktree checkout: not run by git status there",
      async () => {
        const { root, marker } = await setup();
        const result = await sh(
          attackRun(root, "workspace"),
          `M=${quote(marker)}; ${PLANT_WORKTREE} && ${THROUGH_CHECKOUT} && echo planted`,
        );
        expect(result.stdout, result.text).toContain("planted");
        expect(existsSync(path.join(root, ".git", "worktrees", "evil", "config.worktree"))).toBe(false);
        try {
          hostGit(path.join(root, "wt"), ["status", "--short"]);
        } catch {
          // Only the marker matters.
        }
        expect(existsSync(marker)).toBe(false);
      },
      60_000,
    );

    it("a worktree the command adds with git worktree add keeps working on the host (nothing planted, nothing moved)", async () => {
      const { root } = await setup();
      const result = await sh(attackRun(root, "workspace"), "git worktree add -q wt2 -b side && echo added");
      expect(result.stdout, result.text).toContain("added");
      expect(result.text).not.toContain("moved aside");
      expect(hostGit(path.join(root, "wt2"), ["rev-parse", "--abbrev-ref", "HEAD"]).trim()).toBe("side");
    }, 60_000);
  },
);
