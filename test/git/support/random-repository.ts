import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { git, temporaryDirectory } from "./git-fixture.js";

/**
 * Small random repositories built with the real git CLI, for property tests of the git tools
 * against git itself. A plan is plain data (so fast-check can shrink it); `buildRepository` plays
 * it: odd paths and contents, renames and copies with edits near the similarity threshold, merges
 * (conflicts taken from one side, evil merges, octopus, criss-cross), empty commits, identical
 * timestamps, authors sharing an e-mail, tags, `git gc` and commit-graphs at random points.
 */

/**
 * Paths the plans write: spaces, quotes, a newline, unicode, nesting, a name differing from
 * another only in case (a move between them is a case-only rename), and two files under a directory
 * named like another file (`a.txt/x`, `a.txt/y`: the file and the directory replace each other;
 * with two, a file that replaces the directory is followed into it by git's --follow, which
 * pairs it with one of them while the other is deleted, as `a.txt/x` alone never was).
 */
export const PATHS = [
  "a.txt",
  "d/b.txt",
  "d/e/c.txt",
  "sp ace.txt",
  'q"uote.txt',
  "ünï.txt",
  "new\nline.txt",
  "d/copy.txt",
  "A.txt",
  "a.txt/x",
  "a.txt/y",
];

const AUTHORS = [
  { name: "Ann", email: "ann@example.com" },
  { name: "Ann Other", email: "ann@example.com" },
  { name: "Bö Ünïcode", email: "bo@example.com" },
  { name: "Cy", email: "CY@Example.com" },
];

/** File content: lines from a small alphabet (so identical lines recur), CRLF, no final newline, binary, empty, very long lines. */
export type Content =
  | { readonly kind: "text"; readonly lines: readonly number[]; readonly crlf: boolean; readonly final: boolean }
  | { readonly kind: "long"; readonly seed: number }
  | { readonly kind: "binary"; readonly seed: number }
  | { readonly kind: "empty" };

/** One change to the working tree. */
export type Edit =
  | { readonly op: "write"; readonly file: number; readonly content: Content }
  | { readonly op: "delete"; readonly file: number }
  | { readonly op: "move"; readonly from: number; readonly to: number; readonly keep: number; readonly copy: boolean }
  | { readonly op: "chmod"; readonly file: number }
  | { readonly op: "symlink"; readonly file: number; readonly target: number }
  /** The path becomes a submodule entry (a gitlink to the current HEAD; its directory stays empty, as an uninitialised submodule's). */
  | { readonly op: "gitlink"; readonly file: number };

/** One commit's worth of edits, by one author, maybe at the previous commit's time. */
export interface CommitPlan {
  readonly edits: readonly Edit[];
  readonly author: number;
  readonly sameTime: boolean;
}

/** One step of a plan. */
export type Step =
  | { readonly step: "commit"; readonly commit: CommitPlan }
  | {
      readonly step: "merge";
      readonly sides: readonly (readonly CommitPlan[])[];
      readonly mainline: readonly CommitPlan[];
      readonly resolve: "ours" | "theirs" | "evil";
    }
  | { readonly step: "crisscross"; readonly left: CommitPlan; readonly right: CommitPlan; readonly after: CommitPlan }
  | { readonly step: "tag"; readonly annotated: boolean; readonly target: "commit" | "tree" | "blob" }
  | { readonly step: "mailmap" }
  | { readonly step: "detach" }
  | { readonly step: "gc" }
  | { readonly step: "commit-graph" };

const fileIndex = fc.nat({ max: PATHS.length - 1 });

const content: fc.Arbitrary<Content> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("text" as const),
      lines: fc.array(fc.nat({ max: 5 }), { maxLength: 12 }),
      crlf: fc.boolean(),
      final: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("binary" as const), seed: fc.nat({ max: 3 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "empty" as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("long" as const), seed: fc.nat({ max: 3 }) }) },
);

const edit: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("write" as const), file: fileIndex, content }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), file: fileIndex }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant("move" as const),
      from: fileIndex,
      to: fileIndex,
      keep: fc.nat({ max: 10 }),
      copy: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("chmod" as const), file: fileIndex }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("symlink" as const), file: fileIndex, target: fileIndex }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("gitlink" as const), file: fileIndex }) },
);

/** One commit's plan: up to three edits. */
export const commitPlan: fc.Arbitrary<CommitPlan> = fc.record({
  edits: fc.array(edit, { maxLength: 3 }),
  author: fc.nat({ max: AUTHORS.length - 1 }),
  sameTime: fc.boolean(),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ step: fc.constant("commit" as const), commit: commitPlan }) },
  {
    weight: 3,
    arbitrary: fc.record({
      step: fc.constant("merge" as const),
      sides: fc.array(fc.array(commitPlan, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 5 }),
      mainline: fc.array(commitPlan, { maxLength: 2 }),
      resolve: fc.constantFrom("ours" as const, "theirs" as const, "evil" as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ step: fc.constant("crisscross" as const), left: commitPlan, right: commitPlan, after: commitPlan }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      step: fc.constant("tag" as const),
      annotated: fc.boolean(),
      target: fc.constantFrom("commit" as const, "commit" as const, "tree" as const, "blob" as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ step: "mailmap" as const }) },
  { weight: 1, arbitrary: fc.constant({ step: "detach" as const }) },
  { weight: 1, arbitrary: fc.constant({ step: "gc" as const }) },
  { weight: 1, arbitrary: fc.constant({ step: "commit-graph" as const }) },
);

/**
 * Two commits: `a.txt/x` and `a.txt/y` written, then one of them moved (edited as a move is) onto
 * `a.txt`, which removes the directory, so the other is deleted beside it: a file that replaced
 * a directory of its name, which git's --follow follows into the directory. Plain edits reach it
 * rarely (a move onto `a.txt` while both files are there: 0 of 30 plans drawn with seed 5401;
 * with these steps, 6 of 30).
 */
const intoDirectory: fc.Arbitrary<Step[]> = fc
  .record({
    x: content,
    y: content,
    from: fc.constantFrom(PATHS.indexOf("a.txt/x"), PATHS.indexOf("a.txt/y")),
    keep: fc.nat({ max: 10 }),
    author: fc.nat({ max: AUTHORS.length - 1 }),
  })
  .map(({ x, y, from, keep, author }) => [
    {
      step: "commit",
      commit: {
        edits: [
          { op: "write", file: PATHS.indexOf("a.txt/x"), content: x },
          { op: "write", file: PATHS.indexOf("a.txt/y"), content: y },
        ],
        author,
        sameTime: false,
      },
    },
    {
      step: "commit",
      commit: { edits: [{ op: "move", from, to: PATHS.indexOf("a.txt"), keep, copy: false }], author, sameTime: false },
    },
  ]);

/** Steps: single ones, and now and then the two of {@link intoDirectory}. */
function steps(single: fc.Arbitrary<Step>): fc.Arbitrary<Step[]> {
  return fc
    .array(fc.oneof({ weight: 12, arbitrary: single.map((one) => [one]) }, { weight: 1, arbitrary: intoDirectory }), {
      minLength: 1,
      maxLength: 12,
    })
    .map((groups) => groups.flat());
}

/** A plan: a first commit, then steps. */
export const repositoryPlan = fc.record({ first: commitPlan, steps: steps(step) });
/**
 * A plan of commits only, one after the other (no merges): the histories where `git log --follow`
 * and `git_file_history`'s rename and copy following must agree (they compare merges differently).
 */
export const linearRepositoryPlan = fc.record({
  first: commitPlan,
  steps: steps(fc.record({ step: fc.constant("commit" as const), commit: commitPlan })),
});
/** What {@link repositoryPlan} draws. */
export type RepositoryPlan = typeof repositoryPlan extends fc.Arbitrary<infer T> ? T : never;

const LINES = ["alpha", "beta", "}", "", "return null;", "gamma delta"];

function render(value: Content): Buffer {
  if (value.kind === "empty") return Buffer.alloc(0);
  if (value.kind === "binary") return Buffer.from([0, 1, 2, 255, value.seed, 0, 10, 65]);
  if (value.kind === "long") return Buffer.from(`alpha\n${"x".repeat(1500)} ${value.seed}\n${"y".repeat(2500)}\nbeta\n`);
  const eol = value.crlf ? "\r\n" : "\n";
  const text = value.lines.map((line, index) => `${LINES[line]}${index % 4 === 3 ? ` ${index}` : ""}`).join(eol);
  return Buffer.from(value.lines.length > 0 && value.final ? `${text}${eol}` : text);
}

/** Plays plans into a repository; keeps the clock and the names of branches and tags. */
class Builder {
  private seconds = 1_700_000_000;
  private branches = 0;
  private tags = 0;

  constructor(readonly directory: string) {}

  private file(index: number): string {
    return path.join(this.directory, PATHS[index] as string);
  }

  private isFile(index: number): boolean {
    const target = this.file(index);
    return existsSync(target) && lstatSync(target).isFile();
  }

  private exists(index: number): boolean {
    try {
      lstatSync(this.file(index));
      return true;
    } catch {
      return false;
    }
  }

  /** Makes room for a path: a file (or link) where one of its directories goes is removed, as is the path itself. */
  private clear(index: number): void {
    const target = this.file(index);
    const parts = (PATHS[index] as string).split("/");
    for (let depth = 1; depth < parts.length; depth++) {
      const ancestor = path.join(this.directory, ...parts.slice(0, depth));
      // lstat, not existsSync: a dangling symlink in the way (seed 3004) does not "exist" but blocks mkdir.
      const found = lstatSync(ancestor, { throwIfNoEntry: false });
      if (found !== undefined && !found.isDirectory()) rmSync(ancestor, { force: true });
      // An empty directory on the way may be a submodule entry an earlier commit made (a gitlink at
      // a.txt, then a.txt/y written, seed 5403): the path goes under it only once the index
      // forgets it, or `git add -A` refuses the file and leaves it untracked, in a later checkout's way.
      else if (found?.isDirectory() === true && readdirSync(ancestor).length === 0)
        git(this.directory, ["rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", parts.slice(0, depth).join("/")]);
    }
    if (this.exists(index)) rmSync(target, { recursive: true, force: true });
    mkdirSync(path.dirname(target), { recursive: true });
  }

  private put(index: number, data: Buffer): void {
    this.clear(index);
    writeFileSync(this.file(index), data);
  }

  /** Gitlinks to set once the working tree is staged (`git add -A` would not make them). */
  private gitlinks: string[] = [];

  private apply(change: Edit): void {
    switch (change.op) {
      case "write":
        this.put(change.file, render(change.content));
        return;
      case "delete":
        if (this.exists(change.file)) rmSync(this.file(change.file), { recursive: true, force: true });
        return;
      case "chmod":
        if (this.isFile(change.file))
          chmodSync(this.file(change.file), (lstatSync(this.file(change.file)).mode & 0o111) === 0 ? 0o755 : 0o644);
        return;
      case "symlink":
        if (change.file === change.target) return;
        this.clear(change.file);
        symlinkSync(PATHS[change.target] as string, this.file(change.file));
        return;
      case "gitlink":
        // The empty directory of an uninitialised submodule; the entry itself is staged after `git add -A`.
        this.clear(change.file);
        mkdirSync(this.file(change.file));
        this.gitlinks.push(PATHS[change.file] as string);
        return;
      case "move": {
        if (change.from === change.to || !this.isFile(change.from)) return;
        const old = readFileSync(this.file(change.from)).toString("latin1").split("\n");
        // Keep `keep` of every 10 lines: renames and copies around git's 50% similarity.
        const edited = old.map((line, index) => ((index * 7) % 10 < change.keep ? line : `${line} edited ${index}`));
        if (!change.copy) rmSync(this.file(change.from));
        this.put(change.to, Buffer.from(edited.join("\n"), "latin1"));
        return;
      }
    }
  }

  private environment(author: number, sameTime: boolean): Record<string, string> {
    if (!sameTime) this.seconds += 3600;
    const person = AUTHORS[author] ?? AUTHORS[0];
    const date = `@${this.seconds} +0000`;
    return {
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
      GIT_AUTHOR_NAME: person?.name ?? "",
      GIT_AUTHOR_EMAIL: person?.email ?? "",
      GIT_COMMITTER_NAME: person?.name ?? "",
      GIT_COMMITTER_EMAIL: person?.email ?? "",
    };
  }

  /**
   * Commits `plan`'s edits. `wrote`: the working tree changed outside the edits (the mailmap). A
   * commit without either stages nothing: every commit, merge and checkout here leaves the index
   * equal to the working tree, so `git add -A` would find nothing (one process fewer per empty commit).
   */
  commit(plan: CommitPlan, message: string, wrote = false): void {
    for (const change of plan.edits) this.apply(change);
    if (plan.edits.length > 0 || wrote) git(this.directory, ["add", "-A"]);
    this.stageGitlinks();
    git(this.directory, ["commit", "-q", "--allow-empty", "-m", message], this.environment(plan.author, plan.sameTime));
  }

  private stageGitlinks(): void {
    const links = this.gitlinks.splice(0);
    if (links.length === 0) return;
    // Before the first commit there is no HEAD to point at: a made-up id, as a submodule's commit often is here.
    let head = "1".repeat(40);
    try {
      head = git(this.directory, ["rev-parse", "--verify", "-q", "HEAD"]).trim();
    } catch {}
    for (const link of links) {
      // A later edit of the same commit may have put a file there, or files under it (seed 4003:
      // a gitlink at a.txt, then a.txt/x written): that one wins; only the empty directory stays a gitlink.
      // --replace: an entry in the way in the index (a.txt a gitlink from an earlier commit, a.txt/x
      // the new one, seed 5005) goes, as the working tree has it; without it update-index refused.
      const where = path.join(this.directory, link);
      if (existsSync(where) && lstatSync(where).isDirectory() && readdirSync(where).length === 0)
        git(this.directory, ["update-index", "--add", "--replace", "--cacheinfo", `160000,${head},${link}`]);
    }
  }

  /**
   * A submodule entry in conflict (a file or symlink of that name on the other side: git records
   * both as `path~side`) stays unmerged with only an empty directory in the working tree, which
   * `git add -A` refuses ("does not have a commit checked out", seed 2001): stage it as its side
   * recorded it, as {@link stageGitlinks} stages a new one.
   */
  private stageConflictedGitlinks(): void {
    for (const entry of git(this.directory, ["ls-files", "-u", "-z"]).split("\0").filter(Boolean)) {
      const [meta = "", file = ""] = entry.split("\t");
      const [mode, oid] = meta.split(" ");
      if (mode === "160000" && oid !== undefined)
        git(this.directory, ["update-index", "--add", "--cacheinfo", `160000,${oid},${file}`]);
    }
  }

  private branch(): string {
    this.branches++;
    return `side-${this.branches}`;
  }

  private mergeInto(heads: readonly string[], resolve: "ours" | "theirs" | "evil", message: string, author: number): void {
    const environment = this.environment(author, false);
    const strategy = heads.length > 1 || resolve === "evil" ? [] : ["-X", resolve];
    try {
      git(this.directory, ["merge", "-q", "--no-ff", "--no-commit", ...strategy, ...heads], environment);
    } catch {
      if (heads.length > 1) {
        // An octopus with conflicts stops before touching anything; merge one side instead.
        git(this.directory, ["reset", "-q", "--hard"]);
        this.mergeInto(heads.slice(0, 1), resolve === "evil" ? "theirs" : resolve, message, author);
        return;
      }
      // Conflicts -X cannot settle (modify/delete, binary): take the working tree as it is.
      this.stageConflictedGitlinks();
    }
    if (resolve === "evil") this.put(0, Buffer.from(`evil ${message}\nalpha\n`));
    git(this.directory, ["add", "-A"]);
    git(this.directory, ["commit", "-q", "--allow-empty", "-m", message], environment);
  }

  play(value: Step, index: number): void {
    switch (value.step) {
      case "commit":
        this.commit(value.commit, value.commit.edits.length === 0 ? `empty ${index}` : `change ${index} needle`);
        return;
      case "merge": {
        const heads = value.sides.map((commits, side) => {
          const name = this.branch();
          git(this.directory, ["checkout", "-q", "-b", name, "main"]);
          for (const [number, plan] of commits.entries()) this.commit(plan, `side ${index}.${side}.${number}`);
          return name;
        });
        git(this.directory, ["checkout", "-q", "main"]);
        for (const [number, plan] of value.mainline.entries()) this.commit(plan, `main ${index}.${number} needle`);
        this.mergeInto(heads, value.resolve, `merge ${index}`, index % AUTHORS.length);
        return;
      }
      case "crisscross": {
        const base = git(this.directory, ["rev-parse", "HEAD"]).trim();
        const other = this.branch();
        git(this.directory, ["checkout", "-q", "-b", other, base]);
        this.commit(value.right, `right ${index}`);
        const right = git(this.directory, ["rev-parse", "HEAD"]).trim();
        git(this.directory, ["checkout", "-q", "main"]);
        this.commit(value.left, `left ${index}`);
        const left = git(this.directory, ["rev-parse", "HEAD"]).trim();
        this.mergeInto([right], "theirs", `cross ${index}a`, 1);
        git(this.directory, ["checkout", "-q", other]);
        this.mergeInto([left], "ours", `cross ${index}b`, 2);
        this.commit(value.after, `after ${index}`);
        git(this.directory, ["checkout", "-q", "main"]);
        this.mergeInto([other], "theirs", `cross ${index}c`, 3);
        return;
      }
      case "tag": {
        this.tags++;
        // A tag may name a tree or a blob (git allows it; no history tool can start there).
        // -z: a quoted name (core.quotePath) is no revision (seed 3001: HEAD:"q\\"uote.txt").
        const files = git(this.directory, ["ls-tree", "--name-only", "-z", "HEAD"]).split("\0").filter(Boolean);
        const target =
          value.target === "tree"
            ? "HEAD^{tree}"
            : value.target === "blob" && files[0] !== undefined
              ? `HEAD:${files[0]}`
              : "HEAD";
        const name = target === "HEAD" ? `v${this.tags}` : `x-${value.target}-${this.tags}`;
        git(
          this.directory,
          ["tag", ...(value.annotated ? ["-a", "-m", `tag ${this.tags}`] : []), name, target],
          this.environment(0, true),
        );
        return;
      }
      case "mailmap":
        // Both forms: a name for an address, and a name and address for another name and address.
        // Also: comments, a name and address for one name at an address (more specific than the
        // first line), an address alone for another address, a comment after an entry.
        writeFileSync(
          path.join(this.directory, ".mailmap"),
          "# people\nAnn <ann@example.com>\nAnnie <annie@example.com> Ann Other <ann@example.com>\nCy Real <cy@example.com> <CY@Example.com>\n<bo.new@example.com> <bo@example.com> # moved\n",
        );
        this.commit({ edits: [], author: 0, sameTime: false }, `mailmap ${index}`, true);
        return;
      case "detach":
        // A commit on a detached HEAD, then main follows it (merges check out main again).
        git(this.directory, ["checkout", "-q", "--detach"]);
        this.commit({ edits: [], author: 2, sameTime: true }, `detached ${index}`);
        git(this.directory, ["branch", "-f", "main", "HEAD"]);
        return;
      case "gc":
        git(this.directory, ["gc", "-q", "--no-prune"]);
        return;
      case "commit-graph":
        git(this.directory, ["commit-graph", "write", "--reachable"]);
        return;
    }
  }
}

/** Builds the plan's repository in a new temporary directory (branch `main`) and returns its path. */
export function buildRepository(plan: RepositoryPlan): string {
  const directory = temporaryDirectory("fuzz");
  git(directory, ["init", "-q"]);
  const builder = new Builder(directory);
  builder.commit(plan.first, "first needle");
  for (const [index, value] of plan.steps.entries()) builder.play(value, index);
  return directory;
}
