/**
 * The walk after each `workspace` command (new-git-directories.ts) reuses the spawn scan's
 * listings of directories that are provably unchanged (same path, device, inode, size and
 * times), so a command in a workspace of 20,000 directories no longer costs the host a full
 * listing of the tree. These tests build such a tree, let a spawn scan cache it, then change it
 * the ways a command can (a repository deep in a cached leaf, a `.git` file into `node_modules`,
 * a linked worktree, a directory holding a repository moved from beyond the walk's depth into
 * it, two cached directories swapped, a leaf's times set back) and check that the walk still
 * finds every new git directory while reading only the directories that changed.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, realpathSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitProtection } from "../../src/tools/sandbox/git-protection.js";
import { capability } from "../support/capabilities.js";
import { shortRacyMargin } from "../support/short-racy-margin.js";
import { walkAfterCommand } from "./support/walk-after-command.js";

const git = capability("git");

function hostGit(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], { cwd, stdio: "ignore" });
}

let workspace: string;

/** Runs the walk as after a command that started with `protection` (handles opened now, as at spawn). */
function walkAfter(protection: ReturnType<typeof gitProtection>) {
  const { repairs, listed, reused } = walkAfterCommand(workspace, protection);
  return {
    found: repairs.found.map((found) => path.relative(workspace, found)),
    moved: repairs.moved.map((state) => path.relative(workspace, state.from)),
    listed,
    reused,
  };
}

let restoreRacyMargin: (() => void) | undefined;
beforeAll(async () => {
  if (git.missing) return;
  workspace = realpathSync(await mkdtemp(path.join(tmpdir(), "atc-gitwalk-")));
  hostGit(workspace, "init", "-q", "-b", "main");
  writeFileSync(path.join(workspace, "a.txt"), "a\n");
  hostGit(workspace, "add", "a.txt");
  hostGit(workspace, "commit", "-q", "-m", "a");
  // 200 x 100 = 20,000 directories: the walk's bound, and the size the cost was measured at.
  execFileSync("bash", ["-c", "mkdir -p a{0..199}/b{0..99}"], { cwd: workspace });
  // A repository below the walk's depth: `X` (depth 6) is listed at spawn, its `sub` never
  // entered, so `sub/.git` is neither protected at spawn nor walked.
  const beyond = path.join(workspace, "deep", "1", "2", "3", "4", "X", "sub");
  mkdirSync(beyond, { recursive: true });
  hostGit(beyond, "init", "-q");
  // Listings are reused only once their times are past the racy margin (fine-grained times here).
  restoreRacyMargin = await shortRacyMargin();
}, 120_000);

afterAll(() => {
  restoreRacyMargin?.();
  if (workspace !== undefined) rmSync(workspace, { recursive: true, force: true });
}, 120_000);

describe.skipIf(git.missing)(git.label("the walk after a command reuses the spawn scan's listings"), () => {
  it("positive control: an unchanged tree of 20,000 directories is read by neither the scan nor the walk, and nothing is found", () => {
    gitProtection(workspace);
    const protection = gitProtection(workspace);
    const walk = walkAfter(protection);
    expect(walk.found).toEqual([]);
    expect(walk.reused).toBeGreaterThan(20_000);
    expect(walk.listed).toBe(0);
  });

  it("finds every git directory a command made or moved into reach, reading only the changed directories", async () => {
    const protection = gitProtection(workspace);
    // What a command does between spawn and exit.
    hostGit(workspace, "init", "-q", "a7/b42/c/d/sub");
    hostGit(workspace, "init", "-q", "--bare", "node_modules/store");
    writeFileSync(path.join(workspace, "a12", "b1", ".git"), `gitdir: ${path.join(workspace, "node_modules", "store")}\n`);
    hostGit(workspace, "worktree", "add", "-q", "a13/b2/wt");
    // A directory listed at spawn at the walk's last depth (its `sub` never entered) moved up:
    // its own times say nothing of what is below it, and its listing is at another path now.
    renameSync(path.join(workspace, "deep", "1", "2", "3", "4", "X"), path.join(workspace, "a20", "b5", "X"));
    // Two cached directories swapped, with a new repository in a grandchild of one.
    hostGit(workspace, "init", "-q", "a31/b7/g");
    renameSync(path.join(workspace, "a30"), path.join(workspace, "swap"));
    renameSync(path.join(workspace, "a31"), path.join(workspace, "a30"));
    renameSync(path.join(workspace, "swap"), path.join(workspace, "a31"));
    // A repository made in a cached leaf whose times are then set back (its change time is not).
    const leaf = path.join(workspace, "a40", "b40");
    const reference = path.join(workspace, "a41", "b0");
    hostGit(leaf, "init", "-q");
    execFileSync("touch", ["-h", "-r", reference, leaf]);
    const walk = walkAfter(protection);
    expect(walk.found.sort()).toEqual(
      [
        "a7/b42/c/d/sub/.git",
        "node_modules/store",
        ".git/worktrees/wt",
        "a20/b5/X/sub/.git",
        "a30/b7/g/.git",
        "a40/b40/.git",
      ].sort(),
    );
    // The worktree's commondir names the protected repository: kept.
    expect(walk.moved).toEqual([]);
    expect(walk.reused).toBeGreaterThan(19_000);
    expect(walk.listed).toBeLessThan(1_000);
  });
});
