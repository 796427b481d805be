/**
 * Tree diffs on the shapes a synchronous walk over raw ids must get right (the node reader walks
 * trees in place; the isomorphic-git reader walks parsed entries): a mode-only change, a file
 * turned into a symlink with the same blob, a directory replaced by a file of the same name and
 * back, deep nesting, a deletion of a whole directory. Both readers, loose and packed, must give
 * git's answers for `git log -S` (whole history and scoped) and for `git diff --name-status` of
 * every commit.
 */

import { execFileSync } from "node:child_process";
import { chmodSync, rmSync, symlinkSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DiffRangeOutput, FileHistoryOutput, LogSearchOutput } from "../../src/git/index.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitMallocEnvironment } from "./support/git-malloc.js";
import { diffNameStatus } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";
import { looseAndPacked } from "./support/loose-and-packed.js";

const gitCapability = capability("git");
const AUTHOR = { name: "Shape Tester", email: "shapes@example.com" };
const TOKEN = "TOKEN_x";

function buildShapes(prefix: string): FixtureRepository {
  const repository = FixtureRepository.create(prefix);
  const at = (file: string) => path.join(repository.directory, file);
  repository
    .write("a.txt", `one ${TOKEN}\n`)
    .write("lib/deep/er/still/file.ts", `export const x = "${TOKEN}";\n`)
    .write("lib/other.ts", "nothing here\n")
    .write("swap/inner.txt", `${TOKEN} inside a directory\n`)
    .commit("start", AUTHOR);
  // Mode only: the same blob, executable now (git -S sees no change in count).
  chmodSync(at("a.txt"), 0o755);
  repository.commit("a.txt executable", AUTHOR);
  // A file becomes a symlink whose target text is the file's content: the same blob id, another mode.
  rmSync(at("a.txt"));
  symlinkSync(`one ${TOKEN}\n`, at("a.txt"));
  repository.commit("a.txt is a symlink now", AUTHOR);
  // A directory replaced by a file of the same name, which carries the token once more.
  rmSync(at("swap"), { recursive: true });
  repository.write("swap", `${TOKEN} ${TOKEN} as a file\n`).commit("swap is a file", AUTHOR);
  // And back to a directory, without the token.
  rmSync(at("swap"));
  repository.write("swap/inner.txt", "no token\n").commit("swap is a directory again", AUTHOR);
  // A deep edit that keeps the count, one that changes it, and one beside it.
  repository
    .write("lib/deep/er/still/file.ts", `export const x = "${TOKEN}"; // same count\n`)
    .commit("deep, same count", AUTHOR);
  repository.write("lib/deep/er/still/file.ts", "export const x = 1;\n").write("lib/other.ts", `now ${TOKEN}\n`);
  repository.commit("deep loses it, other gains it", AUTHOR);
  // A whole directory deleted, and a new one added, in one commit.
  rmSync(at("lib/deep"), { recursive: true });
  repository.write("new/dir/file.md", `${TOKEN}\n`).commit("deep removed, new added", AUTHOR);
  return repository;
}

describe.skipIf(gitCapability.missing)(gitCapability.label("tree diffs of unusual shapes match git"), () => {
  const fixtures = looseAndPacked(buildShapes, "shapes", { aggressive: true });
  const variants = [fixtures.loose, fixtures.packed, fixtures.looseIsomorphic, fixtures.packedIsomorphic];

  it.each(variants)("git_log_search pickaxe finds what git log -S finds (%s)", async (_, repository, options) => {
    const { directory } = repository();
    const run = gitRun(directory, options);
    for (const scope of [undefined, "a.txt", "swap", "lib", "lib/deep/er", "new"]) {
      const pathArgs = scope === undefined ? [] : ["--", scope];
      const expected = git(directory, ["log", "--format=%H", `-S${TOKEN}`, ...pathArgs])
        .split("\n")
        .filter((line) => line !== "")
        .map((id) => id.slice(0, 10));
      const answer = output<LogSearchOutput>(
        await run.call("git_log_search", {
          query: TOKEN,
          mode: "pickaxe",
          max_results: 200,
          ...(scope === undefined ? {} : { path: scope }),
        }),
      );
      expect(
        answer.commits.map((commit) => commit.sha),
        `scope ${scope ?? "."}`,
      ).toEqual(expected);
    }
    // The mode-only commits are not pickaxe matches; the swaps are.
    expect(git(directory, ["log", "--format=%s", `-S${TOKEN}`]).split("\n")).toEqual(
      expect.arrayContaining(["swap is a file", "swap is a directory again", "deep loses it, other gains it"]),
    );
  });

  it.each(variants)(
    "git_diff_range lists what git diff --name-status lists for every commit (%s)",
    async (_, repository, options) => {
      const { directory } = repository();
      const run = gitRun(directory, options);
      const commits = git(directory, ["rev-list", "--reverse", "HEAD"])
        .split("\n")
        .filter((line) => line !== "");
      for (const commit of commits.slice(1)) {
        const answer = output<DiffRangeOutput>(await run.call("git_diff_range", { from: `${commit}~1`, to: commit }));
        const expected = diffNameStatus(directory, `${commit}~1`, commit);
        const actual = answer.files.map((file) => ({
          status: file.status.slice(0, 1),
          path: file.path,
          ...(file.previous_path === undefined ? {} : { previous: file.previous_path }),
        }));
        const order = (list: { path: string }[]) => [...list].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
        expect(order(actual), git(directory, ["log", "-1", "--format=%s", commit]).trim()).toEqual(order(expected));
      }
    },
  );
});

/**
 * A path 3,000 directories deep (6,000 characters: past PATH_MAX, so written with git fast-import,
 * not the file system). The synchronous raw-id walk recursed three native frames per level and
 * threw RangeError here; git diffs it fine.
 */
const DEPTH = 3000;

/** The directory {@link DEPTH} levels down. */
function deepPath(): string {
  return Array.from({ length: DEPTH }, (_, level) => `d${level % 10}`).join("/");
}

function buildDeep(): FixtureRepository {
  const repository = FixtureRepository.create("shapes-deep");
  const deep = deepPath();
  const commit = (mark: number, message: string, day: number, body: string) => {
    const time = 1_704_106_800 + day * 86_400;
    const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
    return `commit refs/heads/main\nmark :${mark}\ncommitter ${AUTHOR.name} <${AUTHOR.email}> ${time} +0000\n${data(message)}${body}\n`;
  };
  const stream = [
    commit(
      1,
      "deep file with the token",
      1,
      `M 100644 inline ${deep}/file.txt\n${`data 8\n${TOKEN}\n`}M 100644 inline top.txt\ndata 4\ntop\n`,
    ),
    commit(2, "beside it, no token", 2, `M 100644 inline ${deep}/other.txt\ndata 9\nno token\n`),
    commit(3, "deep file loses the token", 3, `M 100644 inline ${deep}/file.txt\ndata 5\ngone\n`),
    commit(4, "a second deep file gains it", 4, `M 100644 inline ${deep}/d0/late.txt\ndata 8\n${TOKEN}\n`),
  ].join("");
  execFileSync("git", ["fast-import", "--quiet"], { cwd: repository.directory, input: stream, env: gitMallocEnvironment() });
  git(repository.directory, ["symbolic-ref", "HEAD", "refs/heads/main"]);
  return repository;
}

/** git with its stderr dropped: it warns once per deep path it cannot stat in the (empty) work tree. */
function quietGit(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], maxBuffer: 64 * 1024 * 1024 });
}

describe.skipIf(gitCapability.missing)(gitCapability.label("tree diffs thousands of directories deep"), () => {
  let deep: FixtureRepository;
  beforeAll(() => {
    deep = buildDeep();
  });
  afterAll(() => removeDirectory(deep.directory));

  it("git_log_search pickaxe finds what git log -S finds, loose and packed, whole and scoped", async () => {
    const { directory } = deep;
    const scoped = `${Array.from({ length: 1500 }, (_, level) => `d${level % 10}`).join("/")}`;
    for (const stage of ["loose", "packed"]) {
      if (stage === "packed") quietGit(directory, ["gc", "-q"]);
      const run = gitRun(directory);
      for (const scope of [undefined, scoped]) {
        const pathArgs = scope === undefined ? [] : ["--", scope];
        const expected = quietGit(directory, ["log", "--format=%H", `-S${TOKEN}`, ...pathArgs])
          .split("\n")
          .filter((line) => line !== "")
          .map((id) => id.slice(0, 10));
        expect(expected).toHaveLength(3);
        const answer = output<LogSearchOutput>(
          await run.call("git_log_search", {
            query: TOKEN,
            mode: "pickaxe",
            max_results: 50,
            ...(scope === undefined ? {} : { path: scope }),
          }),
        );
        expect(
          answer.commits.map((commit) => commit.sha),
          `${stage}, scope ${scope === undefined ? "." : "1,500 deep"}`,
        ).toEqual(expected);
      }
      // git_file_history follows the same path down (its own walk, not the tree diff).
      const file = `${deepPath()}/file.txt`;
      const history = output<FileHistoryOutput>(await run.call("git_file_history", { path: file, follow_renames: false }));
      const expectedHistory = quietGit(directory, ["log", "--format=%H", "--", file])
        .split("\n")
        .filter((line) => line !== "")
        .map((id) => id.slice(0, 10));
      expect(expectedHistory).toHaveLength(2);
      expect(history.commits.map((commit) => commit.sha)).toEqual(expectedHistory);
    }
  }, 120_000);
});
