import * as nodeFs from "node:fs";
import { afterAll, beforeAll } from "vitest";
import type { GitToolOptions } from "../../../src/git/index.js";
import { copyRepository, FixtureRepository, git, removeDirectory } from "./git-fixture.js";

/** One way to read a fixture: its title, the fixture, and the git tools' options. */
export type ReaderVariant = [title: string, repository: () => FixtureRepository, options: GitToolOptions];

/**
 * Builds a history once in the enclosing suite's `beforeAll` (`build(prefix)`) and copies it: one
 * copy left loose, one packed by `git gc` (with `--aggressive` when asked) with a commit-graph written,
 * both removed in `afterAll`. Returns the ways to read them: both copies with the node reader,
 * each with the isomorphic-git reader.
 */
export function looseAndPacked(
  build: (prefix: string) => FixtureRepository,
  prefix: string,
  options: { readonly aggressive?: boolean } = {},
): { loose: ReaderVariant; packed: ReaderVariant; looseIsomorphic: ReaderVariant; packedIsomorphic: ReaderVariant } {
  let loose: FixtureRepository | undefined;
  let packed: FixtureRepository | undefined;
  beforeAll(() => {
    loose = build(`${prefix}-loose`);
    // The same history (a deterministic build: the same object ids), copied rather than built twice.
    packed = new FixtureRepository(copyRepository(loose.directory, `${prefix}-packed`));
    git(packed.directory, ["gc", "-q", ...(options.aggressive === true ? ["--aggressive"] : [])]);
    git(packed.directory, ["commit-graph", "write", "--reachable"]);
  });
  afterAll(() => {
    if (loose !== undefined) removeDirectory(loose.directory);
    if (packed !== undefined) removeDirectory(packed.directory);
  });
  const theLoose = () => loose as FixtureRepository;
  const thePacked = () => packed as FixtureRepository;
  return {
    loose: ["loose, node reader", theLoose, {}],
    packed: ["packed with a commit-graph, node reader", thePacked, {}],
    looseIsomorphic: ["loose, isomorphic-git reader", theLoose, { fs: nodeFs }],
    packedIsomorphic: ["packed, isomorphic-git reader", thePacked, { fs: nodeFs }],
  };
}
