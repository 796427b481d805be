/**
 * `A...B` in `git_diff_range` diffs from the merge base git takes: git's `get_merge_bases` (a paint
 * down to the common commits, then `remove_redundant`: a candidate that is an ancestor of another
 * goes), the first of `git merge-base --all`'s list when there are several. Commit times out of
 * order leave an ancestor among the painted candidates; a fixed history and random ones (random
 * shapes, random commit times) are compared with the git CLI.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { DiffRangeOutput } from "../../src/git/index.js";
import type { Run } from "../../src/index.js";
import { git, gitShell, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { failure, gitRun, output } from "./support/git-run.js";

interface Node {
  readonly name: string;
  readonly time: number;
  readonly parents: readonly number[];
}

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDirectory(directory);
});

/** A repository with one branch per node (named after it), built by `git fast-import` with the given committer times. */
function build(nodes: readonly Node[]): string {
  const directory = temporaryDirectory("merge-base");
  directories.push(directory);
  const stream: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  for (const [index, node] of nodes.entries()) {
    const [first, ...rest] = node.parents;
    stream.push(
      `commit refs/heads/${node.name}\nmark :${index + 1}\n`,
      `author A <a@example.com> ${node.time} +0000\ncommitter A <a@example.com> ${node.time} +0000\n`,
      data(node.name),
      ...(first === undefined ? [] : [`from :${first + 1}\n`]),
      ...rest.map((parent) => `merge :${parent + 1}\n`),
      `M 100644 inline ${node.name}.txt\n`,
      data(`${node.name}\n`),
      "M 100644 inline shared.txt\n",
      data(`${node.name} ${index % 3}\n`),
      "\n",
    );
  }
  gitShell(directory, "git init -q -b main && git fast-import --quiet", stream.join(""));
  return directory;
}

/** `git merge-base --all`, or undefined when the two share no history. */
function gitBases(directory: string, left: string, right: string): string[] | undefined {
  try {
    return git(directory, ["merge-base", "--all", left, right]).trim().split("\n");
  } catch {
    return undefined;
  }
}

/** What the git CLI answers for a pair: `git merge-base --all` (undefined: no shared history) and `git diff A...B`. */
interface CliAnswer {
  readonly bases: string[] | undefined;
  readonly diff: string;
}

/**
 * The CLI's answers for every pair, from one shell (a process per git command, but one spawn from
 * this process): per pair the bases, then the diff (only when there are bases), NUL-separated.
 */
function cliAnswers(directory: string, pairs: readonly (readonly [string, string])[]): CliAnswer[] {
  const script = pairs
    .map(
      ([left, right]) =>
        `if b=$(git merge-base --all ${left} ${right}); then printf '%s\\0' "$b"; git diff ${left}...${right} || exit 3; else printf '\\0'; fi; printf '\\0'`,
    )
    .join("\n");
  const fields = gitShell(directory, script).split("\0");
  return pairs.map((_, index) => {
    const bases = fields[2 * index] as string;
    return { bases: bases === "" ? undefined : bases.trim().split("\n"), diff: fields[2 * index + 1] as string };
  });
}

async function compare(run: Run, left: string, right: string, { bases, diff: cliDiff }: CliAnswer): Promise<void> {
  const range = `${left}...${right}`;
  const result = await run.call("git_diff_range", { from: range, max_bytes: 200_000 });
  if (bases === undefined) {
    expect(failure(result).code, range).toBe("no_merge_base");
    return;
  }
  const diff = output<DiffRangeOutput>(result);
  const [first, ...others] = bases;
  expect(diff.from, range).toBe(`merge base of ${range} (${first?.slice(0, 10)})`);
  expect(diff.diff, range).toBe(cliDiff);
  if (others.length === 0) expect(diff.note, range).toBeUndefined();
  else for (const other of others) expect(diff.note, range).toContain(other.slice(0, 10));
}

/** `count` commits, each with 0 (rarely), 1 or 2 earlier parents and a random committer time. */
function randomHistory(count: number, random: () => number): Node[] {
  const nodes: Node[] = [];
  for (let index = 0; index < count; index++) {
    const parents: number[] = [];
    if (index > 0 && random() > 0.06) {
      parents.push(Math.floor(random() * index));
      const second = Math.floor(random() * index);
      if (index > 1 && random() < 0.6 && !parents.includes(second)) parents.push(second);
    }
    nodes.push({ name: `c${index}`, time: 1_000 + Math.floor(random() * 50) * 100, parents });
  }
  return nodes;
}

describe("git_diff_range A...B merge base", () => {
  it("drops a candidate that is an ancestor of another (commit times out of order), as git's remove_redundant", async () => {
    // R0 100, X 8000, M 1800, Y 2000, Q2 1000, Q1 1500, P 8500, A 9000 (P, Q1), B 9000 (Y).
    const names = ["R0", "X", "M", "Y", "Q2", "Q1", "P", "A", "B"];
    const at = (name: string) => names.indexOf(name);
    const directory = build([
      { name: "R0", time: 100, parents: [] },
      { name: "X", time: 8000, parents: [at("R0")] },
      { name: "M", time: 1800, parents: [at("X")] },
      { name: "Y", time: 2000, parents: [at("M")] },
      { name: "Q2", time: 1000, parents: [at("Y")] },
      { name: "Q1", time: 1500, parents: [at("Q2")] },
      { name: "P", time: 8500, parents: [at("X")] },
      { name: "A", time: 9000, parents: [at("P"), at("Q1")] },
      { name: "B", time: 9000, parents: [at("Y")] },
    ]);
    const y = git(directory, ["rev-parse", "Y"]).trim();
    expect(gitBases(directory, "A", "B")).toEqual([y]);
    const pairs = [
      ["A", "B"],
      ["B", "A"],
    ] as const;
    const answers = cliAnswers(directory, pairs);
    // The shell's answers read back as the commands give them one at a time.
    expect(answers.map((answer) => answer.bases)).toEqual([[y], [y]]);
    expect(answers[0]?.diff).toBe(git(directory, ["diff", "A...B"]));
    for (const [index, [left, right]] of pairs.entries()) {
      const diff = output<DiffRangeOutput>(await gitRun(directory).call("git_diff_range", { from: `${left}...${right}` }));
      expect(diff.from).toBe(`merge base of ${left}...${right} (${y.slice(0, 10)})`);
      expect(diff.note).toBeUndefined();
      await compare(gitRun(directory), left, right, answers[index] as CliAnswer);
    }
  });

  it("random histories with random commit times: the bases of git merge-base --all and the diff of git diff A...B", async () => {
    let seed = 38_002;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let several = 0;
    let unrelated = 0;
    for (let history = 0; history < 40; history++) {
      const count = 8 + Math.floor(random() * 8);
      const nodes = randomHistory(count, random);
      const directory = build(nodes);
      // The same draws as one pair at a time (nothing else draws between them).
      const pairs = Array.from(
        { length: 8 },
        () => [`c${Math.floor(random() * count)}`, `c${Math.floor(random() * count)}`] as const,
      );
      const answers = cliAnswers(directory, pairs);
      // One run per repository: the calls of a run over an unchanging repository, as an agent makes them.
      const run = gitRun(directory);
      for (const [index, [left, right]] of pairs.entries()) {
        const answer = answers[index] as CliAnswer;
        if (answer.bases === undefined) unrelated++;
        else if (answer.bases.length > 1) several++;
        await compare(run, left, right, answer);
      }
    }
    // The draw covers several merge bases and unrelated sides too.
    expect(several).toBeGreaterThan(0);
    expect(unrelated).toBeGreaterThan(0);
  }, 240_000);
});
