import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readerFileAccess } from "../../src/git/file-access.js";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { RefResolver } from "../../src/git/refs.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";

const gitCapability = capability("git");
const AUTHOR = { name: "Ref Tester", email: "refs@example.com" };
const NAMES = ["main", "feature/x", "v1", "v2-light", "origin/main", "origin", "refs/heads/main", "HEAD", "nested"];

/** What `git rev-parse --verify -q <name>^{}`-less resolution gives: the ref's own id (tags unpeeled). */
function gitAnswer(directory: string, name: string): string | undefined {
  try {
    return git(directory, ["rev-parse", "--verify", "-q", name]).trim();
  } catch {
    return undefined;
  }
}

describe.skipIf(gitCapability.missing)(gitCapability.label("RefResolver reads refs as git does"), () => {
  let repository: FixtureRepository;

  beforeAll(() => {
    repository = FixtureRepository.create("refs");
    repository.write("a.txt", "one\n").commit("first", AUTHOR);
    repository.git("branch", "feature/x");
    repository.git("tag", "-a", "-m", "annotated", "v1");
    repository.write("a.txt", "two\n").commit("second", AUTHOR);
    repository.git("tag", "v2-light");
    repository.git("update-ref", "refs/remotes/origin/main", "HEAD~1");
    repository.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main");
    // A tag and a branch with the same name: git prefers the tag (refs/tags before refs/heads).
    repository.git("branch", "nested", "HEAD~1");
    repository.git("tag", "nested", "HEAD");
  });

  afterAll(() => removeDirectory(repository.directory));

  const resolver = () => new RefResolver(readerFileAccess(unconfinedReader()), path.join(repository.directory, ".git"));

  it("resolves loose refs by git's short-name rules, symbolic refs included", async () => {
    for (const name of NAMES)
      expect([name, await resolver().resolve(name)]).toEqual([name, gitAnswer(repository.directory, name)]);
    expect(await resolver().resolve("no-such-branch")).toBeUndefined();
  });

  it("resolves the same names once every ref is packed (packed-refs, peeled lines skipped)", async () => {
    repository.git("pack-refs", "--all");
    // The loose files are gone: only packed-refs answers now (symbolic refs stay loose).
    expect(git(repository.directory, ["for-each-ref", "--format=%(refname)"]).split("\n").length).toBeGreaterThan(5);
    for (const name of NAMES)
      expect([name, await resolver().resolve(name)]).toEqual([name, gitAnswer(repository.directory, name)]);
    // A loose ref written after packing wins over its packed value, as in git.
    repository.git("update-ref", "refs/heads/main", "HEAD~1");
    expect(await resolver().resolve("main")).toBe(gitAnswer(repository.directory, "main"));
    expect(await resolver().resolve("main")).not.toBe(gitAnswer(repository.directory, "v2-light"));
  });
});
