/**
 * Hostile ref files: a loose ref whose file holds neither a commit id nor `ref: <name>` shadows
 * the same ref in `packed-refs` (git ignores the broken ref and does NOT fall back to the packed
 * value: `git rev-parse main` fails, and HEAD pointing at it is "broken"). The tools must not
 * answer with the stale packed commit: they refuse with `invalid_ref` naming the broken ref.
 * Controls: the same layout with an honest loose ref, and with no loose ref, give git's answer.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { gitRun } from "./support/git-run.js";

const gitCapability = capability("git");
const author = { name: "Refs", email: "refs@example.com" };

let scratch: string;
let repository: FixtureRepository;
let branch: string;
let packedHead: string;
let looseHead: string;

/** What `git rev-parse --verify <revision>` says, or `undefined` when git refuses it. */
function gitCommit(revision: string): string | undefined {
  try {
    return git(repository.directory, ["rev-parse", "--verify", "-q", `${revision}^{commit}`]).trim();
  } catch {
    return undefined;
  }
}

/** The commit a tool call resolved `from` to: git_diff_range names both ends' ids. */
async function diffFrom(from: string): Promise<ToolCallResult> {
  return gitRun(repository.directory).call("git_diff_range", { from, to: `${looseHead}` });
}

function loose(text: string | undefined): void {
  const file = path.join(repository.directory, ".git", "refs", "heads", branch);
  if (text === undefined) rmSync(file, { force: true });
  else writeFileSync(file, text);
}

describe.skipIf(gitCapability.missing)(gitCapability.label("hostile ref files"), () => {
  beforeAll(() => {
    scratch = temporaryDirectory("hostile-refs");
    const directory = path.join(scratch, "repository");
    mkdirSync(directory);
    git(directory, ["init", "-q"]);
    repository = new FixtureRepository(directory);
    repository.write("file.txt", "one\n").commit("one", author);
    repository.write("file.txt", "two\n").commit("two", author);
    git(directory, ["pack-refs", "--all"]);
    packedHead = repository.head();
    repository.write("file.txt", "three\n").commit("three", author);
    looseHead = repository.head();
    branch = git(directory, ["symbolic-ref", "--short", "HEAD"]).trim();
  });
  afterAll(() => removeDirectory(scratch));

  for (const [what, content] of [
    ["garbage", "garbage\n"],
    ["a short id", `${"0".repeat(12)}\n`],
    ["an empty file", ""],
  ] as const) {
    it(`a loose branch file holding ${what} is refused, not answered from packed-refs`, async () => {
      loose(content);
      try {
        expect(gitCommit(branch)).toBeUndefined();
        expect(gitCommit("HEAD")).toBeUndefined();
        for (const from of [branch, "HEAD", `refs/heads/${branch}`]) {
          const result = await diffFrom(from);
          const text = JSON.stringify(result);
          expect(result.ok, `${from}: ${text.slice(0, 300)}`).toBe(false);
          if (!result.ok) expect(result.error.code, `${from}: ${text.slice(0, 300)}`).toBe("invalid_ref");
          expect(text).not.toContain(packedHead.slice(0, 10));
        }
        const search = await gitRun(repository.directory).call("git_log_search", { query: "two" });
        expect(search.ok).toBe(false);
        if (!search.ok) expect(search.error.code).toBe("invalid_ref");
      } finally {
        loose(`${looseHead}\n`);
      }
    });
  }

  it("controls: an honest loose ref wins over packed-refs; without one the packed value is used (as git)", async () => {
    for (const [content, expected] of [
      [`${looseHead}\n`, looseHead],
      [undefined, packedHead],
    ] as const) {
      loose(content);
      expect(gitCommit(branch)).toBe(expected);
      for (const from of [branch, "HEAD"]) {
        const result = await diffFrom(from);
        expect(result.ok, JSON.stringify(result).slice(0, 300)).toBe(true);
        if (result.ok) expect((result.output as { from: string }).from).toContain(expected.slice(0, 10));
      }
    }
    loose(`${looseHead}\n`);
  });
});
