/**
 * README error table: `ambiguous_ref`, "the name matches more than one ref or commit". A real
 * repository holding two objects whose ids share their first four hex digits (700 small blobs
 * written with `git hash-object -w`; the contents are fixed, so the ids and the shared prefix are
 * too): a revision given as that short id is refused as `ambiguous_ref`, not resolved to either
 * object. Control: the commit's own short id resolves.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { failure, gitRun } from "./support/git-run.js";

const author = { name: "Ada", email: "ada@example.com" };
let repository: FixtureRepository;
let blobs: string;
let head: string;
let shared: string;

beforeAll(() => {
  repository = FixtureRepository.create("atc-claims-ambiguous-");
  repository.write("README.md", "one\n");
  repository.commit("first", author);
  repository.write("README.md", "two\n");
  head = repository.commit("second", author);
  blobs = temporaryDirectory("atc-claims-blobs-");
  mkdirSync(blobs, { recursive: true });
  const files = Array.from({ length: 700 }, (_, index) => {
    const file = path.join(blobs, `b${index}`);
    writeFileSync(file, `blob ${index}\n`);
    return file;
  });
  git(repository.directory, ["hash-object", "-w", ...files]);
  const ids = git(repository.directory, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname)"]).trim().split("\n");
  const byPrefix = new Map<string, number>();
  for (const id of ids) byPrefix.set(id.slice(0, 4), (byPrefix.get(id.slice(0, 4)) ?? 0) + 1);
  shared = [...byPrefix].find(([, count]) => count > 1)?.[0] ?? "";
});
afterAll(() => {
  removeDirectory(repository.directory);
  removeDirectory(blobs);
});

describe("a short id that several objects share", () => {
  it("is refused as ambiguous_ref; control: the commit's own short id resolves", async () => {
    expect(shared).toMatch(/^[0-9a-f]{4}$/);
    const run = gitRun(repository.directory);
    expect(failure(await run.call("git_diff_range", { from: shared }))).toMatchObject({ code: "ambiguous_ref" });
    const control = await run.call("git_diff_range", { from: head.slice(0, 7) });
    expect(control.ok, JSON.stringify(control)).toBe(true);
  });
});
