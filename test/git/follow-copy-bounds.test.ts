/**
 * The copy search of `git_file_history` (git log --follow: every file of the parent is a source)
 * rules candidates out by size from object headers before reading content, yields to the event
 * loop and honours an abort, as git's diffcore-rename reads sizes first.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, statSync, truncateSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import type { FileHistoryOutput } from "../../src/git/index.js";
import { NodeObjectStore, objectDirectories } from "../../src/git/objects/node-object-store.js";
import { copyRepository, FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitRun, output } from "./support/git-run.js";

const author = { name: "A", email: "a@example.com" };
/**
 * A compressible blob of `mib` MiB: a few KiB in the object store, `mib` MiB to inflate and hash.
 * Blobs of different seeds differ in their first line only, so `git gc` deltas each against one
 * base with a few hundred bytes of instructions; with the seed in every line (stop 48) each delta
 * was 1.2 MB and the gc took 8.3 CPU-s of this file's 21.5 (0.4 s now).
 */
const large = (seed: number, mib: number) =>
  Buffer.concat([
    Buffer.from(`large file ${seed}\n`),
    Buffer.from("a line of a large file, repeated\n".repeat((mib * 1024 * 1024) / 33)),
  ]);
const lines = (seed: number, count: number) =>
  Array.from({ length: count }, (_, line) => `file ${seed} line ${line} ${"x".repeat(20)}\n`).join("");

/** git's own --follow answer for `path`: each commit's status letter and source path. */
function gitFollow(directory: string, path: string): string[] {
  const out = git(directory, ["log", "--follow", "--name-status", "--format=%x01", "--", path]);
  return out
    .split("\x01")
    .map((block) => block.trim())
    .filter((block) => block !== "")
    .map((block) =>
      block
        .split("\t")
        .slice(0, 2)
        .join(" ")
        .replace(/^([RC])\d+/, "$1"),
    );
}

function toolFollow(result: FileHistoryOutput): string[] {
  return result.commits.map((commit) => `${commit.status} ${commit.previous_path ?? commit.path}`);
}

let hostile: FixtureRepository;
let hostilePacked: FixtureRepository;
let wide: FixtureRepository;

beforeAll(() => {
  // 8 files of 8 MiB, then a commit adding a small file: none is within the size rule of it.
  const repository = FixtureRepository.create("follow-hostile");
  for (let index = 0; index < 8; index++) repository.write(`big/${index}.txt`, large(index, 8));
  repository.commit("large files", author);
  repository.write("small.txt", lines(0, 20));
  repository.commit("small file", author);
  // The packed one is a copy of it (the same commits; the 64 MiB hashed and compressed once), where
  // the large files become deltas of each other, so their sizes come from delta headers.
  hostilePacked = new FixtureRepository(copyRepository(repository.directory, "follow-hostile"));
  hostilePacked.git("gc", "-q");
  // Each large blob without its last 16 bytes: its header (`blob <size>`) is intact, its content
  // is not. git's --follow reads only the header of a candidate the size rule excludes.
  for (let index = 0; index < 8; index++) {
    const oid = repository.git("rev-parse", `HEAD~1:big/${index}.txt`).trim();
    const file = path.join(repository.directory, ".git", "objects", oid.slice(0, 2), oid.slice(2));
    chmodSync(file, 0o644);
    truncateSync(file, statSync(file).size - 16);
  }
  hostile = repository;
  // 3,000 files of about 1 KiB (all within the size rule), then a copy of one of them, edited.
  wide = FixtureRepository.create("follow-wide");
  for (let index = 0; index < 3000; index++) wide.write(`src/${index}.txt`, lines(index, 30));
  wide.commit("many files", author);
  wide.write("copy.txt", lines(2999, 30).replace("line 3 ", "line three "));
  wide.commit("copy", author);
}, 300_000);

afterAll(() => {
  for (const repository of [hostile, hostilePacked, wide]) if (repository !== undefined) removeDirectory(repository.directory);
});

describe("git_file_history copy search bounds", () => {
  for (const [name, repository] of [
    ["loose", () => hostile],
    ["packed with deltas", () => hostilePacked],
  ] as const) {
    it(`does not read the parent's large files when their sizes rule them out (${name})`, async () => {
      const { directory } = repository();
      const run = gitRun(directory);
      await run.call("git_file_history", { path: "small.txt", follow_renames: false }); // warm up (module and repository loading, no candidate read)
      const before = process.cpuUsage();
      const result = output<FileHistoryOutput>(await run.call("git_file_history", { path: "small.txt" }));
      const used = process.cpuUsage(before);
      expect(toolFollow(result)).toEqual(gitFollow(directory, "small.txt"));
      expect(toolFollow(result)).toEqual(["A small.txt"]);
      // Inflating and hashing the 64 MiB took 0.3-1 s of CPU (and failed on the cut blobs); the headers take milliseconds.
      expect((used.user + used.system) / 1000).toBeLessThan(200);
    }, 60_000);
  }

  it("finds the copy as git does, and lets timers run while it compares 3,000 candidates", async () => {
    const run = gitRun(wide.directory);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const result = output<FileHistoryOutput>(await run.call("git_file_history", { path: "copy.txt" }));
    clearInterval(timer);
    expect(toolFollow(result)).toEqual(gitFollow(wide.directory, "copy.txt"));
    expect(result.commits[0]).toMatchObject({ status: "C", previous_path: "src/2999.txt" });
    expect(ticks).toBeGreaterThan(0);
  }, 60_000);

  it("stops the copy search when the call is aborted", async () => {
    const run = gitRun(wide.directory);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 0);
    const result = await run.call("git_file_history", { path: "copy.txt" }, { signal: controller.signal });
    expect(result.ok ? "answered" : result.error.code).toBe("aborted");
    // Positive control: the same call without an abort answers.
    expect((await run.call("git_file_history", { path: "copy.txt" })).ok).toBe(true);
  }, 60_000);

  it("reads each object's size from its header as git cat-file -s does (loose, packed whole, deltas)", () => {
    for (const repository of [wide, hostilePacked]) {
      const { directory } = repository;
      const reader = unconfinedReader();
      const store = new NodeObjectStore(objectDirectories(path.join(directory, ".git", "objects"), reader), reader);
      const objects = git(directory, ["rev-list", "--objects", "--all"])
        .split("\n")
        .map((line) => line.split(" ")[0] as string)
        .filter((oid) => oid !== "");
      const sample = objects.filter((_, index) => index % 97 === 0 || index < 20);
      const expected = execFileSync("git", ["cat-file", "--batch-check=%(objectsize)"], {
        cwd: directory,
        input: `${sample.join("\n")}\n`,
        encoding: "utf8",
      })
        .trim()
        .split("\n")
        .map(Number);
      expect(sample.map((oid) => store.sizeSync(oid))).toEqual(expected);
      store.close();
    }
  });

  it("follows a file that replaced a directory of its name to its source, as git log --follow does", async () => {
    const repository = FixtureRepository.create("follow-dir-to-file");
    try {
      repository.write("a/inner.txt", lines(1, 20)).write("other.txt", "x\n").commit("directory", author);
      repository.remove("a/inner.txt");
      removeDirectory(path.join(repository.directory, "a"));
      repository.write("a", lines(1, 20)).commit("file replaces directory", author);
      const history = output<FileHistoryOutput>(await gitRun(repository.directory).call("git_file_history", { path: "a" }));
      const expected = gitFollow(repository.directory, "a");
      expect(expected).toEqual(["R a/inner.txt", "A a/inner.txt"]);
      // Past the replaced directory git's path stays "a" (its pathspec): the older commit is the
      // directory's change (M with files_changed), as the tool shows every commit with a directory
      // of the file's name and the property test compares it (git prints a line per file there).
      expect(toolFollow(history)[0]).toEqual(expected[0]);
      expect(history.commits).toHaveLength(expected.length);
      expect(history.commits.map((commit) => [commit.status, commit.path, commit.previous_path, commit.files_changed])).toEqual([
        ["R", "a", "a/inner.txt", undefined],
        ["M", "a", undefined, 1],
      ]);
    } finally {
      removeDirectory(repository.directory);
    }
  });
});

describe("git_file_history copy search reads", () => {
  it("reads a loose candidate's file once for its size and its content (before stop 38: twice, with a zlib handle per header)", () => {
    const { directory } = wide;
    const base = unconfinedReader();
    const reads = new Map<string, number>();
    const counting = {
      root: base.root,
      open: (file: string) => base.open(file),
      readFile: (file: string, maxBytes?: number) => {
        reads.set(file, (reads.get(file) ?? 0) + 1);
        return base.readFile(file, maxBytes);
      },
      list: (folder: string) => base.list(folder),
      kind: (file: string) => base.kind(file),
      identity: (file: string) => base.identity(file),
    };
    const store = new NodeObjectStore(objectDirectories(path.join(directory, ".git", "objects"), counting), counting);
    const oids = ["src/0.txt", "src/1.txt", "src/2.txt"].map((file) => git(directory, ["rev-parse", `HEAD~1:${file}`]).trim());
    for (const oid of oids) {
      const size = store.sizeSync(oid);
      const content = store.readSync(oid).content;
      // Same bytes as git's, and the size its header gave.
      expect(content.toString()).toBe(git(directory, ["cat-file", "blob", oid]));
      expect(size).toBe(content.length);
    }
    const looseReads = [...reads].filter(([file]) => /objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/.test(file)).map(([, count]) => count);
    expect(looseReads).toEqual([1, 1, 1]);
    // Control: a content read with no size asked before it reads the file itself (nothing stale is kept).
    store.readSync(oids[0] as string);
    expect([...reads].filter(([file]) => file.endsWith((oids[0] as string).slice(2))).map(([, count]) => count)).toEqual([2]);
    store.close();
  });
});

describe("git_file_history --follow through merges", () => {
  it("lists no merge and follows a rename made on a side branch where it was made, as git log --follow does", async () => {
    const repository = FixtureRepository.create("follow-merges");
    try {
      repository.write("a.txt", lines(1, 20)).write("b.txt", lines(2, 20)).commit("base", author);
      repository.git("checkout", "-q", "-b", "side");
      repository.move("a.txt", "c.txt");
      repository.write("c.txt", lines(1, 20).replace("line 5 ", "line five "));
      repository.commit("side: rename a.txt to c.txt", author);
      repository.write("n.txt", lines(3, 20)).commit("side: add n.txt", author);
      repository.git("checkout", "-q", "main");
      repository.write("b.txt", lines(2, 20).replace("line 1 ", "line one ")).commit("main: edit b.txt", author);
      repository.merge("side", "merge side", author);
      // An evil merge: its result differs from both parents for c.txt.
      repository.write("c.txt", `${lines(1, 20)}evil\n`);
      repository.git("add", "-A");
      repository.git("commit", "-q", "--amend", "--no-edit");
      const run = gitRun(repository.directory);
      for (const file of ["c.txt", "n.txt", "b.txt"]) {
        const result = output<FileHistoryOutput>(await run.call("git_file_history", { path: file }));
        expect(toolFollow(result), file).toEqual(gitFollow(repository.directory, file));
        expect(result.commits.some((commit) => commit.merge === true)).toBe(false);
      }
      // Before: the merge was compared with its first parent, listed as the rename (and n.txt's addition).
      const renamed = output<FileHistoryOutput>(await run.call("git_file_history", { path: "c.txt" }));
      expect(renamed.commits.map((commit) => [commit.subject, commit.status, commit.previous_path])).toEqual([
        ["side: rename a.txt to c.txt", "R", "a.txt"],
        ["base", "A", undefined],
      ]);
      // Control: without following, the merge that changed c.txt is listed, as `git log -- c.txt` lists it.
      const plain = output<FileHistoryOutput>(await run.call("git_file_history", { path: "c.txt", follow_renames: false }));
      expect(plain.commits.map((commit) => commit.sha)).toEqual(
        git(repository.directory, ["log", "--format=%h", "--abbrev=10", "--", "c.txt"]).trim().split("\n"),
      );
      expect(plain.commits[0]?.merge).toBe(true);
    } finally {
      removeDirectory(repository.directory);
    }
  });
});

describe("git_file_history of a file only a merge brought in", () => {
  it("falls back to the history without following (as git log -- path), with a note, for a subtree merge and an evil merge", async () => {
    const repository = FixtureRepository.create("follow-merge-only");
    try {
      repository.write("a.txt", lines(1, 20)).commit("base", author);
      // A subtree add: an unrelated branch merged with -s ours, its tree read under vendor/lib/.
      repository.git("checkout", "-q", "--orphan", "lib");
      repository.git("rm", "-rqf", ".");
      repository.write("lib.txt", lines(2, 20)).commit("lib", author);
      repository.git("checkout", "-q", "main");
      repository.git("merge", "-q", "-s", "ours", "--no-commit", "--allow-unrelated-histories", "lib");
      repository.git("read-tree", "--prefix=vendor/lib/", "-u", "lib");
      repository.git("commit", "-q", "-m", "subtree add lib");
      // An evil merge that adds a file neither parent has.
      repository.git("checkout", "-q", "-b", "side");
      repository.write("s.txt", lines(3, 20)).commit("side", author);
      repository.git("checkout", "-q", "main");
      repository.git("merge", "-q", "--no-commit", "--no-ff", "side");
      repository.write("evil.txt", lines(4, 20));
      repository.git("add", "-A");
      repository.git("commit", "-q", "-m", "evil merge");
      const run = gitRun(repository.directory);
      for (const file of ["vendor/lib/lib.txt", "evil.txt"]) {
        // git log --follow lists nothing here; plain git log -- <path> lists the merge.
        expect(gitFollow(repository.directory, file), file).toEqual([]);
        const result = output<FileHistoryOutput>(await run.call("git_file_history", { path: file }));
        expect(
          result.commits.map((commit) => commit.sha),
          file,
        ).toEqual(git(repository.directory, ["log", "--format=%h", "--abbrev=10", "--", file]).trim().split("\n"));
        expect(result.commits.map((commit) => [commit.status, commit.merge])).toEqual([["A", true]]);
        expect(result.follows_renames).toBe(false);
        expect(result.note).toContain("git log --follow lists no merge");
      }
      // Control: a file with --follow history has no note; a misspelled path is still path_not_found.
      const followed = output<FileHistoryOutput>(await run.call("git_file_history", { path: "s.txt" }));
      expect(followed.follows_renames).toBe(true);
      expect(followed.note).toBeUndefined();
      expect(followed.commits.map((commit) => commit.subject)).toEqual(["side"]);
      const misspelled = await run.call("git_file_history", { path: "vendor/lib/lbi.txt" });
      expect(misspelled.ok).toBe(false);
      expect(JSON.stringify(misspelled)).toContain("path_not_found");
    } finally {
      removeDirectory(repository.directory);
    }
  });
});
