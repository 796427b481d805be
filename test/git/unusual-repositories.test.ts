/**
 * Unusual but legal repositories an agent meets: SHA-256 object ids, replace refs and grafts,
 * odd file names, a .mailmap. Each answer is the git CLI's, or a structured error the model can
 * act on (never a misleading one), with a control on an ordinary repository.
 */
import { execFileSync } from "node:child_process";
import * as nodeFs from "node:fs";
import { symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { BlameOutput, ContributorOutput, DiffRangeOutput, FileHistoryOutput, LogSearchOutput } from "../../src/git/index.js";
import {
  copyRepository,
  FixtureRepository,
  git,
  removeDirectory,
  temporaryDirectory,
  useGitSession,
} from "./support/git-fixture.js";
import { blameIds, logIds } from "./support/git-oracle.js";
import { failure, gitRun, output } from "./support/git-run.js";

const author = { name: "Ada", email: "ada@example.com" };
useGitSession();
const cleanup: string[] = [];
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
  historyTemplate = undefined;
});

function repository(prefix: string, ...initArguments: string[]): FixtureRepository {
  const directory = temporaryDirectory(prefix);
  cleanup.push(directory);
  git(directory, ["init", "-q", ...initArguments]);
  return new FixtureRepository(directory);
}

const EVERY_TOOL: readonly (readonly [string, Record<string, unknown>])[] = [
  ["git_log_search", { query: "needle" }],
  ["git_file_history", { path: "a.txt" }],
  ["git_blame_context", { path: "a.txt", line: 1 }],
  ["git_diff_range", { from: "HEAD~1" }],
  ["git_contributor_context", {}],
];

describe("object formats", () => {
  it("a SHA-256 repository is refused as unsupported, not reported as a broken ref to repair", async () => {
    const sha256 = repository("sha256", "--object-format=sha256");
    sha256.write("a.txt", "one\n").commit("first needle", author);
    sha256.write("a.txt", "two\n").commit("second", author);
    expect(git(sha256.directory, ["rev-parse", "HEAD"]).trim()).toMatch(/^[0-9a-f]{64}$/);
    const run = gitRun(sha256.directory);
    for (const [name, input] of EVERY_TOOL) {
      const error = failure(await run.call(name, input));
      expect(error.code, name).toBe("not_a_git_repository");
      expect(error.message, name).toContain("SHA256");
      expect(error.hint, name).toContain("not damaged");
    }
  });

  it("control: the same history in a SHA-1 repository (objectFormat set explicitly) is read", async () => {
    const sha1 = repository("sha1", "--object-format=sha1");
    git(sha1.directory, ["config", "core.repositoryFormatVersion", "1"]);
    git(sha1.directory, ["config", "extensions.objectFormat", "sha1"]);
    sha1.write("a.txt", "one\n").commit("first needle", author);
    sha1.write("a.txt", "two\n").commit("second", author);
    const run = gitRun(sha1.directory);
    for (const [name, input] of EVERY_TOOL) expect((await run.call(name, input)).ok, name).toBe(true);
    const found = output<{ commits: { sha: string }[] }>(await run.call("git_log_search", { query: "needle" }));
    expect(found.commits.map((commit) => commit.sha)).toEqual([
      git(sha1.directory, ["rev-parse", "--short=10", "HEAD~1"]).trim(),
    ]);
  });
});

/** git with the graft deprecation advice off (its stderr is noise here). */
const quietGit = (directory: string, args: readonly string[]) =>
  git(directory, ["-c", "advice.graftFileDeprecated=false", ...args]);
const short = (ids: readonly string[]) => ids.map((id) => id.slice(0, 10));
/** `git log --format=%H` ids, shortened as the tools show them. */
const logShort = (directory: string, args: readonly string[]) =>
  short(
    quietGit(directory, ["log", "--format=%H", ...args])
      .split("\n")
      .filter(Boolean),
  );

/** The repository of {@link history}, built by its first call. */
let historyTemplate: { directory: string; ids: string[] } | undefined;

/**
 * Four commits changing a.txt (the second's message has "needle"), with a commit-graph git
 * writes: built once per file, each test's repository a copy of it (the tests change it).
 */
function history(prefix: string) {
  if (historyTemplate === undefined) {
    const template = repository("history-template");
    const ids = [
      template.write("a.txt", "one\n").commit("first", author),
      template.write("a.txt", "two\n").commit("second needle", author),
      template.write("a.txt", "two\nthree\n").commit("third", author),
      template.write("a.txt", "two\nthree\nfour\n").commit("fourth", author),
    ];
    git(template.directory, ["commit-graph", "write", "--reachable"]);
    historyTemplate = { directory: template.directory, ids };
  }
  const directory = copyRepository(historyTemplate.directory, prefix);
  cleanup.push(directory);
  return { fixture: new FixtureRepository(directory), directory, ids: [...historyTemplate.ids] };
}

/** Every tool's answer, next to git's, for one repository (a new tool set each time: no cache carried over). */
async function compareWithGit(directory: string, label: string, run = gitRun(directory), from = "HEAD~2"): Promise<void> {
  for (const query of ["needle", "haystack"]) {
    const found = output<LogSearchOutput>(await run.call("git_log_search", { query, mode: "message" }));
    expect(
      found.commits.map((commit) => commit.sha),
      `${label} grep ${query}`,
    ).toEqual(logShort(directory, ["-i", "-F", `--grep=${query}`]));
  }
  const history = output<FileHistoryOutput>(await run.call("git_file_history", { path: "a.txt", follow_renames: false }));
  expect(
    history.commits.map((commit) => commit.sha),
    `${label} history`,
  ).toEqual(logShort(directory, ["--", "a.txt"]));
  expect(
    history.commits.map((commit) => [commit.added, commit.removed]),
    `${label} numstat`,
  ).toEqual(
    quietGit(directory, ["log", "--format=", "--numstat", "--", "a.txt"])
      .split("\n")
      .filter((line) => line !== "")
      .map((line) => line.split("\t").slice(0, 2).map(Number)),
  );
  const diff = output<DiffRangeOutput>(await run.call("git_diff_range", { from: `${from}^`, to: from }));
  expect(diff.diff, `${label} diff`).toBe(quietGit(directory, ["diff", `${from}^`, from]));
  const blame = output<BlameOutput>(await run.call("git_blame_context", { path: "a.txt", start_line: 1, end_line: 3 }));
  expect(
    blame.lines.filter((line) => line.context === undefined).map((line) => line.sha),
    `${label} blame`,
  ).toEqual(short([...blameIds(directory, "HEAD", "a.txt", 1, 3).values()]));
  const cutOff = (await run.call("git_diff_range", { from: "HEAD~3" })).ok;
  expect(cutOff, `${label} HEAD~3`).toBe(quietGit(directory, ["log", "--format=%H"]).split("\n").filter(Boolean).length > 3);
}

describe("replace refs and grafts (git honours both by default)", () => {
  it("a replaced commit and a replaced blob read as git reads them: loose and packed replace refs, a commit-graph ignored", async () => {
    const { fixture, directory, ids } = history("replace");
    const second = ids[1] as string;
    // The second commit replaced by one with another message and content (same parent).
    fixture.write("a.txt", "TWO\n");
    git(directory, ["add", "a.txt"]);
    const tree = git(directory, ["write-tree"]).trim();
    const replacement = git(directory, ["commit-tree", tree, "-p", ids[0] as string, "-m", "replaced haystack"]).trim();
    git(directory, ["checkout", "-q", "--", "a.txt"]);
    git(directory, ["replace", second, replacement]);
    // The third commit's blob replaced by another blob.
    const third = git(directory, ["rev-parse", `${ids[2]}:a.txt`]).trim();
    const other = git(directory, ["hash-object", "-w", "--stdin"], {}).trim();
    git(directory, ["replace", third, other]);
    expect(logIds(directory, ["--grep=haystack"])).toEqual([second]);
    await compareWithGit(directory, "loose");
    // Through a host fs client (isomorphic-git reads the objects): the same replacements apply.
    await compareWithGit(directory, "host fs", gitRun(directory, { fs: nodeFs }));
    git(directory, ["pack-refs", "--all"]);
    expect(git(directory, ["for-each-ref", "refs/replace"]).split("\n").filter(Boolean)).toHaveLength(2);
    await compareWithGit(directory, "packed");
  });

  it("grafts (info/grafts) cut and add parents as git log and blame see them", async () => {
    const { directory, ids } = history("grafts");
    writeFileSync(path.join(directory, ".git", "info", "grafts"), `# cut\n${ids[2]}\n`);
    expect(quietGit(directory, ["log", "--format=%s"])).toBe("fourth\nthird\n");
    await compareWithGit(directory, "cut", gitRun(directory), "HEAD");
    writeFileSync(path.join(directory, ".git", "info", "grafts"), `${ids[2]} ${ids[0]}\n`);
    await compareWithGit(directory, "skipped", gitRun(directory), "HEAD~1");
  });

  it("under the workspace sandbox, grafts and a replace ref that are links outside the workspace are refused; inside they are read", async () => {
    const { directory, ids } = history("replace-sandbox");
    const outside = temporaryDirectory("replace-outside");
    cleanup.push(outside);
    writeFileSync(path.join(outside, "grafts"), `${ids[2]}\n`);
    symlinkSync(path.join(outside, "grafts"), path.join(directory, ".git", "info", "grafts"));
    const refused = failure(await gitRun(directory, {}, "workspace").call("git_log_search", { query: "needle" }));
    expect(refused.code).toBe("repository_outside_workspace");
    expect(refused.message).not.toContain(outside);
    // Without the sandbox the link is followed, as git follows it.
    await compareWithGit(directory, "grafts through a link, unrestricted", gitRun(directory), "HEAD");
    nodeFs.rmSync(path.join(directory, ".git", "info", "grafts"));
    const replacement = git(directory, [
      "commit-tree",
      `${ids[1]}^{tree}`,
      "-p",
      ids[0] as string,
      "-m",
      "replaced haystack",
    ]).trim();
    writeFileSync(path.join(outside, "replace"), `${replacement}\n`);
    nodeFs.mkdirSync(path.join(directory, ".git", "refs", "replace"), { recursive: true });
    symlinkSync(path.join(outside, "replace"), path.join(directory, ".git", "refs", "replace", ids[1] as string));
    const again = failure(await gitRun(directory, {}, "workspace").call("git_log_search", { query: "needle" }));
    expect(again.code).toBe("repository_outside_workspace");
    // Control: the same replace ref as a file inside the workspace is read under the sandbox, as git reads it.
    nodeFs.rmSync(path.join(directory, ".git", "refs", "replace", ids[1] as string));
    git(directory, ["replace", ids[1] as string, replacement]);
    await compareWithGit(directory, "replace ref inside, workspace sandbox", gitRun(directory, {}, "workspace"));
  });

  it("a cycle of replace refs is refused as corrupt_object, as git dies on it", async () => {
    const { directory, ids } = history("replace-cycle");
    const [first, second] = [ids[1] as string, ids[2] as string];
    git(directory, ["update-ref", `refs/replace/${first}`, second]);
    git(directory, ["update-ref", `refs/replace/${second}`, first]);
    expect(() => git(directory, ["log", "--format=%s"])).toThrow(/replace depth too high/);
    const error = failure(await gitRun(directory).call("git_log_search", { query: "needle" }));
    expect(error.code).toBe("corrupt_object");
  });

  it("a replace ref pointing at a missing object is corrupt_object naming the ref, as git dies on it (node driver and host fs)", async () => {
    const { directory, ids } = history("replace-missing");
    const missing = "1234567890123456789012345678901234567890";
    const tree = git(directory, ["rev-parse", `${ids[1]}^{tree}`]).trim();
    const replacement = git(directory, ["commit-tree", tree, "-p", ids[0] as string, "-m", "replaced haystack"]).trim();
    nodeFs.mkdirSync(path.join(directory, ".git", "refs", "replace"), { recursive: true });
    writeFileSync(path.join(directory, ".git", "refs", "replace", ids[1] as string), `${missing}\n`);
    expect(() => git(directory, ["log", "--format=%s"])).toThrow(`replacement ${missing} not found for ${ids[1]}`);
    for (const run of [gitRun(directory), gitRun(directory, { fs: nodeFs })]) {
      const error = failure(await run.call("git_log_search", { query: "needle" }));
      expect(error.code).toBe("corrupt_object");
      expect(error.message).toContain(`refs/replace/${ids[1]} points at ${missing}`);
      expect(error.hint).not.toContain("Ask again");
      expect(error.hint).not.toContain("fetch");
    }
    // Control: a replace ref pointing at an object the repository has is read as git reads it.
    writeFileSync(path.join(directory, ".git", "refs", "replace", ids[1] as string), `${replacement}\n`);
    await compareWithGit(directory, "replace ref to an existing commit");
  });

  it("controls: without replace refs and grafts, and after they are removed, the answers are git's again (no stale cache)", async () => {
    const { fixture, directory, ids } = history("replace-control");
    const run = gitRun(directory);
    await compareWithGit(directory, "plain", run);
    const tree = git(directory, ["rev-parse", `${ids[1]}^{tree}`]).trim();
    const replacement = git(directory, ["commit-tree", tree, "-p", ids[0] as string, "-m", "replaced haystack"]).trim();
    git(directory, ["replace", ids[1] as string, replacement]);
    await compareWithGit(directory, "replaced, same cache", run);
    // core.useReplaceRefs = false turns them off in git: the stored commit again.
    git(directory, ["config", "core.useReplaceRefs", "false"]);
    expect(logIds(directory, ["--grep=needle"])).toEqual([ids[1]]);
    await compareWithGit(directory, "useReplaceRefs false, same cache", run);
    git(directory, ["config", "core.useReplaceRefs", "true"]);
    await compareWithGit(directory, "useReplaceRefs true, same cache", run);
    // The setting on the header's line, as a hand-edited config has it: git honours it.
    git(directory, ["config", "--unset", "core.useReplaceRefs"]);
    nodeFs.appendFileSync(path.join(directory, ".git", "config"), "[core] useReplaceRefs = false\n");
    expect(logIds(directory, ["--grep=needle"])).toEqual([ids[1]]);
    await compareWithGit(directory, "useReplaceRefs false on the header line, same cache", run);
    nodeFs.appendFileSync(path.join(directory, ".git", "config"), "[core] useReplaceRefs = true\n");
    expect(logIds(directory, ["--grep=needle"])).toEqual([]);
    await compareWithGit(directory, "useReplaceRefs true on the header line, same cache", run);
    git(directory, ["replace", "-d", ids[1] as string]);
    await compareWithGit(directory, "removed, same cache", run);
    expect(fixture.directory).toBe(directory);
  });
});

describe("file names git quotes", () => {
  const NAMES = [
    "new\nline.txt",
    "diff --git a/x b/x\n+++ b/x",
    'q"uote.txt',
    "back\\slash.txt",
    "tab\tname.txt",
    "del\u007f.txt",
    "bell\u0007.txt",
    "üml.txt",
    "emoji 😀.txt",
    "sp ace.txt",
  ];

  it("git_diff_range prints names with newlines, quotes, control characters, non-ASCII and spaces exactly as git diff", async () => {
    const fixture = repository("names");
    fixture.write("plain.txt", "plain\n");
    for (const [index, name] of NAMES.entries()) fixture.write(name, `line ${index}\n`);
    fixture.write("bin ü.dat", Buffer.from([0, 1, 2]));
    fixture.commit("names", author);
    for (const [index, name] of NAMES.entries()) fixture.write(name, `line ${index}\nmore\n`);
    fixture.write("bin ü.dat", Buffer.from([0, 1, 3]));
    fixture.move("sp ace.txt", "sp ace moved.txt");
    fixture.move("üml.txt", "ü moved\n.txt");
    fixture.commit("changed", author);
    const run = gitRun(fixture.directory);
    for (const [from, to] of [
      ["HEAD~1", "HEAD"],
      ["HEAD", "HEAD~1"],
    ] as const) {
      const diff = output<DiffRangeOutput>(await run.call("git_diff_range", { from, to, max_bytes: 200_000 }));
      expect(diff.diff, `${from}..${to}`).toBe(git(fixture.directory, ["diff", from, to]));
      expect(diff.files.map((file) => file.path).sort()).toEqual(
        git(fixture.directory, ["diff", "-z", "--name-only", from, to]).split("\0").filter(Boolean).sort(),
      );
    }
    // A name cannot forge a header: the only header lines are git's, one per file.
    const diff = output<DiffRangeOutput>(await run.call("git_diff_range", { from: "HEAD~1" }));
    expect(diff.diff.split("\n").filter((line) => line.startsWith("diff --git"))).toHaveLength(diff.files.length);
  });

  it("control: ordinary names are printed unquoted, as git prints them", async () => {
    const fixture = repository("plain-names");
    fixture.write("src/a.ts", "a\n").write("b-c_d.e", "b\n").commit("first", author);
    fixture.write("src/a.ts", "a\nb\n").write("b-c_d.e", "c\n").commit("second", author);
    const diff = output<DiffRangeOutput>(await gitRun(fixture.directory).call("git_diff_range", { from: "HEAD~1" }));
    expect(diff.diff).toBe(git(fixture.directory, ["diff", "HEAD~1", "HEAD"]));
    expect(diff.diff).toContain("diff --git a/src/a.ts b/src/a.ts\n");
  });
});

/** `git shortlog -sne HEAD` as `{ name, email, commits }`. */
function shortlog(directory: string) {
  return git(directory, ["shortlog", "-sne", "HEAD"])
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [, commits, name, email] = /^\s*(\d+)\t(.*) <(.*)>$/.exec(line) ?? [];
      return { name, email, commits: Number(commits) };
    });
}

async function expectShortlog(directory: string, label: string): Promise<void> {
  const contributors = output<ContributorOutput>(await gitRun(directory).call("git_contributor_context", { max_results: 100 }));
  const expected = shortlog(directory);
  expect(
    contributors.contributors.map(({ name, email, commits }) => ({ name, email, commits })),
    `${label} shortlog`,
  ).toEqual(expect.arrayContaining(expected));
  expect(contributors.contributors, `${label} shortlog`).toHaveLength(expected.length);
  expect(contributors.total_contributors, label).toBe(expected.length);
}

describe("git_contributor_context counts people as git shortlog -sne does", () => {
  it("one address under two names, and one name under two addresses (or two cases of one), are separate lines", async () => {
    const fixture = repository("shortlog-identities");
    const who = [
      { name: "Dan", email: "dan@example.com" },
      { name: "Dan The Intern", email: "dan@example.com" },
      { name: "Dan", email: "dan@example.com" },
      { name: "Bob", email: "bob@example.com" },
      { name: "Bob", email: "BOB@example.com" },
    ];
    for (const [index, person] of who.entries())
      fixture.write("a.txt", "line\n".repeat(index + 1)).commit(`change ${index}`, person);
    await expectShortlog(fixture.directory, "identities");
  });

  it("control: one name and address per person gives git's counts", async () => {
    const fixture = repository("shortlog-plain");
    for (const [index, person] of [author, { name: "Bo", email: "bo@example.com" }, author].entries())
      fixture.write("a.txt", "line\n".repeat(index + 1)).commit(`change ${index}`, person);
    await expectShortlog(fixture.directory, "plain");
  });
});

describe(".mailmap (git shortlog, git log and git blame apply it by default)", () => {
  const MAILMAP = [
    "# comment <nobody@example.com>",
    "Proper Old <old@example.com>",
    "<bob@example.com> <BOB@Work.example.com>",
    "Carol Proper <carol@example.com> <carol@home.example.com>",
    "Dan Proper <dan@example.com> dan the intern <DAN@example.com>",
    "",
  ].join("\n");

  function people() {
    const fixture = repository("mailmap");
    const who = [
      { name: "Old Nick", email: "old@example.com" },
      { name: "Bob", email: "bob@work.example.com" },
      { name: "Bob", email: "bob@example.com" },
      { name: "Carol", email: "carol@home.example.com" },
      { name: "Dan The Intern", email: "dan@example.com" },
      { name: "Dan", email: "dan@example.com" },
      { name: "Eve", email: "eve@example.com" },
    ];
    for (const [index, person] of who.entries())
      fixture.write("a.txt", "line\n".repeat(index + 1)).commit(`change ${index}`, person);
    return fixture;
  }

  async function compare(directory: string, label: string): Promise<void> {
    await expectShortlog(directory, label);
    const run = gitRun(directory);
    const authors = git(directory, ["log", "--format=%aN", "--", "a.txt"]).split("\n").filter(Boolean);
    const history = output<FileHistoryOutput>(await run.call("git_file_history", { path: "a.txt" }));
    expect(
      history.commits.map((commit) => commit.author),
      `${label} log`,
    ).toEqual(authors);
    const found = output<LogSearchOutput>(await run.call("git_log_search", { query: "change", mode: "message" }));
    expect(
      found.commits.map((commit) => commit.author),
      `${label} log search`,
    ).toEqual(authors);
    const blame = output<BlameOutput>(await run.call("git_blame_context", { path: "a.txt", start_line: 1, end_line: 7 }));
    const porcelain = git(directory, ["blame", "--line-porcelain", "HEAD", "--", "a.txt"]);
    expect(
      blame.lines.map((line) => line.author),
      `${label} blame`,
    ).toEqual([...porcelain.matchAll(/^author (.*)$/gm)].map((match) => match[1]));
    expect([...new Set(Object.values(blame.commits).map((commit) => commit.email))].sort(), `${label} blame mail`).toEqual(
      [...new Set([...porcelain.matchAll(/^author-mail <(.*)>$/gm)].map((match) => match[1]))].sort(),
    );
  }

  it("every tool shows and counts authors under the names and addresses the working tree's .mailmap gives", async () => {
    const fixture = people();
    writeFileSync(path.join(fixture.directory, ".mailmap"), MAILMAP);
    expect(git(fixture.directory, ["shortlog", "-sne", "HEAD"])).toContain("Dan Proper <dan@example.com>");
    await compare(fixture.directory, "mapped");
  });

  it("a bare repository applies HEAD:.mailmap, as git does there by default", async () => {
    const fixture = people();
    fixture.write(".mailmap", MAILMAP).commit("add mailmap", { name: "Eve", email: "eve@example.com" });
    const bare = temporaryDirectory("mailmap-bare");
    cleanup.push(bare);
    git(bare, ["clone", "-q", "--bare", fixture.directory, "repository.git"]);
    const directory = path.join(bare, "repository.git");
    expect(git(directory, ["shortlog", "-sne", "HEAD"])).toContain("Dan Proper <dan@example.com>");
    await compare(directory, "bare");
    // Control: a bare repository whose HEAD has no .mailmap counts authors as committed.
    const plain = temporaryDirectory("mailmap-bare-plain");
    cleanup.push(plain);
    git(plain, ["clone", "-q", "--bare", people().directory, "repository.git"]);
    expect(git(path.join(plain, "repository.git"), ["shortlog", "-sne", "HEAD"])).not.toContain("Proper");
    await compare(path.join(plain, "repository.git"), "bare without .mailmap");
  });

  it("controls: without a .mailmap, and with one that is a symbolic link (git does not follow it), authors are as committed", async () => {
    const fixture = people();
    await compare(fixture.directory, "none");
    const elsewhere = path.join(temporaryDirectory("mailmap-target"), "mailmap");
    cleanup.push(path.dirname(elsewhere));
    writeFileSync(elsewhere, MAILMAP);
    symlinkSync(elsewhere, path.join(fixture.directory, ".mailmap"));
    expect(git(fixture.directory, ["shortlog", "-sne", "HEAD"])).not.toContain("Proper");
    await compare(fixture.directory, "symbolic link");
  });
});

describe("commit messages in another encoding (i18n.commitEncoding)", () => {
  /** A commit as git writes it with `i18n.commitEncoding=ISO-8859-1`: message and author name in Latin-1 bytes. */
  function latin1Commit(directory: string, parent: string | undefined, message: string, name: string): string {
    const tree = git(directory, ["write-tree"]).trim();
    const content = Buffer.from(
      `tree ${tree}\n${parent ? `parent ${parent}\n` : ""}author ${name} <zoe@example.com> 1700000000 +0000\n` +
        `committer C <c@example.com> 1700000000 +0000\nencoding ISO-8859-1\n\n${message}\n`,
      "latin1",
    );
    return execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: directory, input: content })
      .toString()
      .trim();
  }

  async function expectGitsAnswers(directory: string, label: string, withGraph: boolean): Promise<void> {
    if (withGraph) git(directory, ["commit-graph", "write", "--reachable"]);
    const run = gitRun(directory);
    // Non-ASCII letters in another case are left out: git folds them only in some locales.
    for (const query of ["café", "naïve", "plain", "LAIT"]) {
      const found = output<LogSearchOutput>(await run.call("git_log_search", { query, mode: "message" }));
      expect(
        found.commits.map((commit) => [commit.sha, commit.subject, commit.author]),
        `${label} ${query}`,
      ).toEqual(
        quietGit(directory, ["log", "-i", "-F", `--grep=${query}`, "--format=%H%x00%s%x00%an"])
          .split("\n")
          .filter(Boolean)
          .map((line) => line.split("\0"))
          .map(([id = "", subject, name]) => [id.slice(0, 10), subject, name]),
      );
    }
    await expectShortlog(directory, label);
  }

  it("a Latin-1 message and author name read as git log shows them (re-encoded), found by --grep", async () => {
    const fixture = repository("latin1");
    fixture.write("a.txt", "one\n");
    git(fixture.directory, ["add", "a.txt"]);
    const first = latin1Commit(fixture.directory, undefined, "café au lait, naïve", "Zoë");
    const second = latin1Commit(fixture.directory, first, "plain ascii", "Zoë");
    git(fixture.directory, ["update-ref", "refs/heads/main", second]);
    expect(git(fixture.directory, ["cat-file", "commit", first])).toContain("encoding ISO-8859-1");
    expect(git(fixture.directory, ["log", "--format=%an %s", "-1", first])).toBe("Zoë café au lait, naïve\n");
    await expectGitsAnswers(fixture.directory, "loose", false);
    await expectGitsAnswers(fixture.directory, "graph", true);
  });

  it("windows-1252's 0x80-0x9F read as git's iconv reads them (€ … “ ”), ISO-8859-1's as C1 controls; an undefined cp1252 byte leaves the bytes as git shows them", async () => {
    const fixture = repository("cp1252");
    fixture.write("a.txt", "one\n");
    git(fixture.directory, ["add", "a.txt"]);
    const tree = git(fixture.directory, ["write-tree"]).trim();
    let parent: string | undefined;
    for (const [encoding, bytes] of [
      ["windows-1252", [0x80, 0x85, 0x93, 0x78, 0x94, 0x20, 0xe9]],
      ["CP1252", [0x80, 0x8a, 0x9f, 0x20, 0xe9]],
      ["ISO-8859-1", [0x80, 0x85, 0x93, 0x20, 0xe9]],
      ["latin1", [0x80, 0x9f, 0x20, 0xe9]],
      ["cp1252", [0x80, 0x81, 0x20, 0xe9]],
    ] as const) {
      const content = Buffer.concat([
        Buffer.from(`tree ${tree}\n${parent ? `parent ${parent}\n` : ""}author A <a@example.com> 1700000000 +0000\n`),
        Buffer.from(`committer A <a@example.com> 1700000000 +0000\nencoding ${encoding}\n\nneedle ${encoding} `),
        Buffer.from(bytes),
        Buffer.from("\n"),
      ]);
      parent = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: fixture.directory, input: content })
        .toString()
        .trim();
    }
    git(fixture.directory, ["update-ref", "refs/heads/main", parent as string]);
    expect(git(fixture.directory, ["log", "-1", "--skip=4", "--format=%s"])).toBe("needle windows-1252 €…“x” é\n");
    const expected = git(fixture.directory, ["log", "--format=%H%x00%s"])
      .split("\n")
      .filter(Boolean)
      .map((line) => line.split("\0"))
      .map(([id = "", subject]) => [id.slice(0, 10), subject]);
    const found = output<LogSearchOutput>(
      await gitRun(fixture.directory).call("git_log_search", { query: "needle", mode: "message" }),
    );
    expect(found.commits.map((commit) => [commit.sha, commit.subject])).toEqual(expected);
    git(fixture.directory, ["commit-graph", "write", "--reachable"]);
    const graph = output<LogSearchOutput>(
      await gitRun(fixture.directory).call("git_log_search", { query: "needle", mode: "message" }),
    );
    expect(graph.commits.map((commit) => [commit.sha, commit.subject])).toEqual(expected);
  });

  it("control: UTF-8 messages (no encoding header) are read as before", async () => {
    const fixture = repository("utf8-messages");
    fixture.write("a.txt", "one\n").commit("café au lait, naïve", { name: "Zoë", email: "zoe@example.com" });
    fixture.write("a.txt", "two\n").commit("plain ascii", { name: "Zoë", email: "zoe@example.com" });
    await expectGitsAnswers(fixture.directory, "utf-8", false);
  });
});

describe("a NUL in a commit message (git reads a commit as a C string)", () => {
  it("text after the NUL is not the message: --grep does not find it and the subject stops there, loose and through the commit-graph", async () => {
    const fixture = repository("nul-message");
    fixture.write("a.txt", "one\n").commit("first visible", author);
    const tree = git(fixture.directory, ["write-tree"]).trim();
    const parent = git(fixture.directory, ["rev-parse", "HEAD"]).trim();
    const who = "Ada <ada@example.com> 1700000000 +0000";
    const content = Buffer.from(
      `tree ${tree}\nparent ${parent}\nauthor ${who}\ncommitter ${who}\n\nvisible head\u0000hidden needle\nmore hidden\n`,
      "latin1",
    );
    const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--literally", "--stdin"], {
      cwd: fixture.directory,
      input: content,
    })
      .toString()
      .trim();
    git(fixture.directory, ["update-ref", "refs/heads/main", commit]);
    // Not the tip: the tip is read whole to resolve HEAD, the commits below it through the graph's fast path.
    fixture.write("a.txt", "two\n").commit("last visible", author);
    for (const withGraph of [false, true]) {
      if (withGraph) git(fixture.directory, ["commit-graph", "write", "--reachable"]);
      const run = gitRun(fixture.directory);
      for (const query of ["needle", "hidden", "visible", "head"]) {
        const found = output<LogSearchOutput>(await run.call("git_log_search", { query, mode: "message" }));
        expect(
          found.commits.map((match) => [match.sha, match.subject]),
          `${query}${withGraph ? " (graph)" : ""}`,
        ).toEqual(
          git(fixture.directory, ["log", "-i", "-F", `--grep=${query}`, "--format=%H%x01%s"])
            .split("\n")
            .filter(Boolean)
            .map((line) => line.split("\u0001"))
            .map(([id = "", subject]) => [id.slice(0, 10), subject]),
        );
      }
    }
  });
});
