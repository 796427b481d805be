/**
 * Type changes: a file that becomes a symlink (or a submodule), and back. git says `T` for them in
 * `git diff --name-status` and `git log --name-status`, and prints their patch as a deletion then
 * a creation of the path; the tools must say the same. An executable bit alone stays `M` (the
 * positive control). Checked against the git CLI, loose and packed.
 */

import { chmodSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { DiffRangeOutput, FileHistoryOutput } from "../../src/git/index.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git } from "./support/git-fixture.js";
import { diffNameStatus } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";
import { looseAndPacked } from "./support/loose-and-packed.js";

const gitCapability = capability("git");
const AUTHOR = { name: "Type Changer", email: "types@example.com" };

function buildTypeChanges(prefix: string): FixtureRepository {
  const repository = FixtureRepository.create(prefix);
  const at = (file: string) => path.join(repository.directory, file);
  repository
    .write("link.txt", "first line\nsecond line\nthird line\n")
    .write("target.txt", "the target\n")
    .write("tool.sh", "echo hi\n")
    .write("module", "a file that becomes a submodule\n")
    .commit("start", AUTHOR);
  // A file becomes a symlink: T.
  rmSync(at("link.txt"));
  symlinkSync("target.txt", at("link.txt"));
  repository.commit("link.txt is a symlink", AUTHOR);
  // Executable only: M, not T.
  chmodSync(at("tool.sh"), 0o755);
  repository.commit("tool.sh executable", AUTHOR);
  // A symlink whose target text changes: M.
  rmSync(at("link.txt"));
  symlinkSync("tool.sh", at("link.txt"));
  repository.commit("link.txt points elsewhere", AUTHOR);
  // And back to a file, with new content: T.
  rmSync(at("link.txt"));
  repository.write("link.txt", "a file again\n").commit("link.txt is a file again", AUTHOR);
  // A file replaced by a submodule (gitlink) entry: T.
  const head = repository.git("rev-parse", "HEAD").trim();
  repository.git("rm", "-q", "--cached", "module");
  repository.git("update-index", "--add", "--cacheinfo", `160000,${head},module`);
  rmSync(at("module"));
  repository.commitIndex("module is a submodule", AUTHOR);
  return repository;
}

/** The commits oldest first, without the root. */
function commitsAfterRoot(directory: string): string[] {
  return git(directory, ["rev-list", "--reverse", "HEAD"])
    .split("\n")
    .filter((line) => line !== "")
    .slice(1);
}

describe.skipIf(gitCapability.missing)(gitCapability.label("type changes are T, as git says"), () => {
  const fixtures = looseAndPacked(buildTypeChanges, "types");
  const variants = [fixtures.loose, fixtures.packed, fixtures.looseIsomorphic];

  it.each(variants)("git_diff_range statuses and totals are git diff's for every commit (%s)", async (_, repository, options) => {
    const { directory } = repository();
    const run = gitRun(directory, options);
    const statuses: string[] = [];
    for (const commit of commitsAfterRoot(directory)) {
      const subject = git(directory, ["log", "-1", "--format=%s", commit]).trim();
      const answer = output<DiffRangeOutput>(await run.call("git_diff_range", { from: `${commit}~1`, to: commit }));
      const expected = diffNameStatus(directory, `${commit}~1`, commit);
      expect(
        answer.files.map((file) => ({ status: file.status, path: file.path })),
        subject,
      ).toEqual(expected);
      const shortstat = git(directory, ["diff", "--shortstat", `${commit}~1`, commit]);
      const number = (pattern: RegExp) => Number(pattern.exec(shortstat)?.[1] ?? 0);
      expect({ added: answer.added, removed: answer.removed }, subject).toEqual({
        added: number(/(\d+) insertions?/),
        removed: number(/(\d+) deletions?/),
      });
      statuses.push(...expected.map((file) => `${file.status} ${file.path}`));
    }
    // The repository holds both kinds: type changes, and mode or target changes that are not.
    expect(statuses).toEqual(["T link.txt", "M tool.sh", "M link.txt", "T link.txt", "T module"]);
  });

  it.each(variants)(
    "git_diff_range prints a type change as git diff does: a deletion, then a creation (%s)",
    async (_, repository, options) => {
      const { directory } = repository();
      const run = gitRun(directory, options);
      for (const commit of commitsAfterRoot(directory).slice(0, 4)) {
        const abbrev = 10;
        const answer = output<DiffRangeOutput>(await run.call("git_diff_range", { from: `${commit}~1`, to: commit }));
        // The tool's ids are abbreviated by its own rule; compare with git's at the tool's length.
        const length = /^index ([0-9a-f]+)\./m.exec(answer.diff)?.[1]?.length ?? abbrev;
        const expected = git(directory, ["diff", "-M", `--abbrev=${length}`, `${commit}~1`, commit]);
        expect(answer.diff, git(directory, ["log", "-1", "--format=%s", commit]).trim()).toBe(expected);
      }
    },
  );

  it.each(variants)("git_file_history says T where git log --name-status does (%s)", async (_, repository, options) => {
    const { directory } = repository();
    const run = gitRun(directory, options);
    for (const file of ["link.txt", "tool.sh"]) {
      for (const follow of [false, true]) {
        const expected = git(directory, ["log", "--name-status", "--format=%x01%h", ...(follow ? ["--follow"] : []), "--", file])
          .split("\u0001")
          .slice(1)
          .map((block) => {
            const [, status = ""] = block.split("\n").filter((line) => line !== "");
            return status.slice(0, 1);
          });
        const answer = output<FileHistoryOutput>(
          await run.call("git_file_history", { path: file, follow_renames: follow, max_results: 50 }),
        );
        expect(
          answer.commits.map((entry) => entry.status),
          `${file}, follow ${follow}`,
        ).toEqual(expected);
      }
    }
  });
});
