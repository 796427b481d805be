/**
 * Repository files read whole (HEAD, packed-refs, config, shallow, grafts, alternates, .mailmap)
 * planted at 1.1 GB (sparse: no disk used). Each was read whole and turned into a string on
 * every call: 1.1 GB of memory, seconds, then V8's string limit as `tool_failed`. Now each is
 * refused as `too_large` before a byte is read; a large but real packed-refs is still read.
 */
import { appendFileSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LogSearchOutput } from "../../src/git/index.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { failure, gitRun, output } from "./support/git-run.js";

const author = { name: "Ada", email: "ada@example.com" };
const cleanup: string[] = [];
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

const PLANTED = 1100 * 1024 * 1024;

function fixture(): FixtureRepository {
  const repository = FixtureRepository.create("metadata-size");
  cleanup.push(repository.directory);
  repository.write("a.txt", "one\n").commit("first needle", author);
  repository.write("a.txt", "two\n").commit("second", author);
  return repository;
}

/** Grows `file` (created if missing, its text kept at the start) to `size` bytes without writing them. */
function plant(file: string, size: number, start = ""): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, start, { flag: "a" });
  appendFileSync(file, "");
  truncateSync(file, size);
}

describe("repository files planted at 1.1 GB", () => {
  for (const [file, start] of [
    [".git/HEAD", "ref: refs/heads/main\n"],
    [".git/packed-refs", "# pack-refs with: peeled fully-peeled sorted \n"],
    // Read once a call has failed (is it a SHA-256 repository?): asked with a ref that does not exist.
    [".git/config", "[core]\n\trepositoryformatversion = 0\n"],
    [".git/shallow", ""],
    [".git/info/grafts", ""],
    [".git/objects/info/alternates", ""],
    [".mailmap", ""],
  ] as const) {
    it(`${file} is refused as too_large before it is read, in bounded time and memory`, async () => {
      const repository = fixture();
      plant(path.join(repository.directory, file), PLANTED, start);
      const rss = process.memoryUsage().rss;
      // This process's CPU time (the reader runs in it), not wall time: at load 20 on 2 cores the
      // call took 3.3-3.9 s of wall (3 s was the bound), waiting for a core; its CPU was 7-213 ms
      // at load 18. Reading the planted file by 1 MiB chunks costs 2.5 CPU-s here, which the
      // old 3 s did not tell apart; 1 s does.
      const started = process.cpuUsage();
      const input = file === ".git/config" ? { query: "needle", ref: "no-such-branch" } : { query: "needle" };
      const error = failure(await gitRun(repository.directory).call("git_log_search", input));
      expect(error.code, JSON.stringify(error)).toBe("too_large");
      expect(error.message).toContain(path.basename(file));
      expect(error.message).not.toContain(repository.directory);
      const spent = process.cpuUsage(started);
      expect((spent.user + spent.system) / 1000, "ms of CPU").toBeLessThan(1_000);
      expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
    }, 60_000);
  }

  it("control: a real packed-refs of 30,000 refs (2 MB) is read, and a packed tag resolves as git resolves it", async () => {
    const repository = fixture();
    const head = git(repository.directory, ["rev-parse", "HEAD~1"]).trim();
    const lines = Array.from({ length: 30_000 }, (_, index) => `${head} refs/tags/t${String(index).padStart(5, "0")}`);
    writeFileSync(
      path.join(repository.directory, ".git", "packed-refs"),
      `# pack-refs with: peeled sorted \n${lines.join("\n")}\n`,
    );
    expect(git(repository.directory, ["rev-parse", "t29999"]).trim()).toBe(head);
    const run = gitRun(repository.directory);
    const found = output<LogSearchOutput>(await run.call("git_log_search", { query: "needle", ref: "t29999" }));
    expect(found.commits.map((commit) => commit.sha)).toEqual([head.slice(0, 10)]);
  });
});

describe("symbolic link loops in place of repository files", () => {
  // (A looping packed-refs is fatal to git; the tools read it as absent.)
  it("info/grafts, shallow, refs/replace and .mailmap that loop are nothing there, as git reads them", async () => {
    const repository = fixture();
    const loop = (file: string) => {
      const at = path.join(repository.directory, file);
      mkdirSync(path.dirname(at), { recursive: true });
      symlinkSync(`${path.basename(file)}.other`, at);
      symlinkSync(path.basename(file), `${at}.other`);
    };
    for (const file of [".git/info/grafts", ".git/shallow", ".git/refs/replace", ".mailmap"]) loop(file);
    const found = output<LogSearchOutput>(await gitRun(repository.directory).call("git_log_search", { query: "needle" }));
    expect(found.commits.map((commit) => commit.sha)).toEqual([
      git(repository.directory, ["log", "--format=%h", "--abbrev=10", "--grep=needle"]).trim(),
    ]);
  });
});
