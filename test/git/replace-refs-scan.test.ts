/**
 * The packed replace refs are scanned once per version of `packed-refs`: a repository with many
 * tags has a large `packed-refs`, and reading it whole on every call made warm calls ~60x slower.
 * A changed file (a new packed replace ref) is scanned again, so it takes effect on the next call.
 */
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type FileAccess, readerFileAccess } from "../../src/git/file-access.js";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { readReplacements } from "../../src/git/replacements.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { logIds } from "./support/git-oracle.js";
import { gitRun, output } from "./support/git-run.js";

const author = { name: "Ada", email: "ada@example.com" };
const cleanup: string[] = [];
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

/** The node driver's file reads, counting whole reads of `packed-refs`. */
function countingFiles(): { files: FileAccess; packedReads: () => number } {
  const files = readerFileAccess(unconfinedReader());
  let reads = 0;
  return {
    files: {
      ...files,
      readText: (file) => {
        if (path.basename(file) === "packed-refs") reads++;
        return files.readText(file);
      },
    },
    packedReads: () => reads,
  };
}

function repositoryWithTags(prefix: string) {
  const directory = temporaryDirectory(prefix);
  cleanup.push(directory);
  git(directory, ["init", "-q"]);
  const fixture = new FixtureRepository(directory);
  const ids = [
    fixture.write("a.txt", "one\n").commit("first", author),
    fixture.write("a.txt", "two\n").commit("second needle", author),
  ];
  for (let tag = 0; tag < 50; tag++) git(directory, ["tag", `v${tag}`, ids[0] as string]);
  git(directory, ["pack-refs", "--all"]);
  return { directory, ids, gitDir: path.join(directory, ".git") };
}

describe("packed replace refs", () => {
  it("an unchanged packed-refs is read once across calls; a changed one is read again and its new replace ref applies", async () => {
    const { directory, ids, gitDir } = repositoryWithTags("packed-scan");
    const { files, packedReads } = countingFiles();
    for (let call = 0; call < 10; call++) expect(await readReplacements(files, gitDir)).toBeUndefined();
    expect(packedReads()).toBe(1);
    // A new packed replace ref rewrites packed-refs: scanned again, and it is honoured.
    const tree = git(directory, ["rev-parse", `${ids[1]}^{tree}`]).trim();
    const replacement = git(directory, ["commit-tree", tree, "-p", ids[0] as string, "-m", "replaced haystack"]).trim();
    git(directory, ["replace", ids[1] as string, replacement]);
    git(directory, ["pack-refs", "--all"]);
    const replaced = await readReplacements(files, gitDir);
    expect(packedReads()).toBe(2);
    expect(replaced?.replacements.objects.get(ids[1] as string)).toBe(replacement);
    for (let call = 0; call < 10; call++) await readReplacements(files, gitDir);
    expect(packedReads()).toBe(2);
  });

  it("through the tools: a replace ref packed between two calls of one run is honoured on the next call, as git log sees it", async () => {
    const { directory, ids } = repositoryWithTags("packed-scan-tools");
    const run = gitRun(directory);
    const search = async () =>
      output<{ commits: { sha: string }[] }>(
        await run.call("git_log_search", { query: "haystack", mode: "message" }),
      ).commits.map((commit) => commit.sha);
    expect(await search()).toEqual([]);
    const tree = git(directory, ["rev-parse", `${ids[1]}^{tree}`]).trim();
    const replacement = git(directory, ["commit-tree", tree, "-p", ids[0] as string, "-m", "replaced haystack"]).trim();
    git(directory, ["replace", ids[1] as string, replacement]);
    git(directory, ["pack-refs", "--all"]);
    expect(logIds(directory, ["--grep=haystack"])).toEqual([ids[1]]);
    expect(await search()).toEqual([(ids[1] as string).slice(0, 10)]);
  });
});
