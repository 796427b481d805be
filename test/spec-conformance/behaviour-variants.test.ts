/**
 * Spec conformance, variants round 3 (/work/shared/spec/agent-tool-catalog.md "Core tools",
 * "Git and code intelligence", "find_tool"): upstream behavioural cases of the built-in tools at
 * their edges, through the package entries as a user imports them: apply_patch with an add, a
 * delete and a move in one patch, a hunk whose context is wrong, CRLF patches; edit's replace_all
 * on overlapping text; write into new directories; bash's cwd outside the workspace, timeout,
 * closed stdin and cut output; git_diff_range with ranges (`A..B`, `A...B`), unknown revisions and
 * paths with spaces, against the git CLI; find_tool with a query of common words only. Each area
 * once more from CommonJS through the built package (`npm run build` first). Statement table:
 * docs/spec-conformance.md.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, defineTool, parseToolConfig, type Run } from "agent-tool-catalog";
import { createGitTools, type DiffRangeOutput, GIT_TOOL_NAMES } from "agent-tool-catalog/git";
import { createBashTool, createFileTools, fileVersion } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelError, ok, okText, runCommonJs } from "./support.js";

let base: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-behaviour-variants-"));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

let counter = 0;
async function workspace(files: Record<string, string> = {}): Promise<string> {
  const root = path.join(base, `w${++counter}`);
  await mkdir(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), content);
  }
  return root;
}

function fileRun(root: string): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { workspace: root } });
}

/** The result's lines without the versions line (its hashes are the files' own). */
const summaryLines = (text: string) => text.split("\n").filter((line) => !line.startsWith("versions:"));

describe("apply_patch: several operations, wrong context, CRLF", () => {
  it("a unified diff that adds, deletes and renames (with a change) in one patch", async () => {
    const root = await workspace({ "del.txt": "gone\n", "mv.txt": "m1\nm2\n" });
    const patch = [
      "--- /dev/null",
      "+++ b/new/added.txt",
      "@@ -0,0 +1,2 @@",
      "+n1",
      "+n2",
      "--- a/del.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-gone",
      "diff --git a/mv.txt b/moved/mv2.txt",
      "similarity index 50%",
      "rename from mv.txt",
      "rename to moved/mv2.txt",
      "--- a/mv.txt",
      "+++ b/moved/mv2.txt",
      "@@ -1,2 +1,2 @@",
      " m1",
      "-m2",
      "+M2",
      "",
    ].join("\n");
    const text = okText(await fileRun(root).call("apply_patch", { patch }));
    expect(summaryLines(text)).toEqual([
      "Applied to 3 files, +3 -2:",
      "A new/added.txt (+2 -0)",
      "D del.txt (+0 -1)",
      "R mv.txt -> moved/mv2.txt (+1 -1)",
    ]);
    expect(text).toMatch(/^versions: new\/added\.txt v_[0-9a-f]{16}, moved\/mv2\.txt v_[0-9a-f]{16}$/m);
    // Each version is the token of the bytes on disk (hashed in the thread pool during the commit).
    const versions = /^versions: (.*)$/m.exec(text)?.[1]?.split(", ") ?? [];
    for (const [name, version] of versions.map((entry) => entry.split(" ")))
      expect(version).toBe(fileVersion(await readFile(path.join(root, name as string))));
    expect((await readdir(root, { recursive: true })).sort()).toEqual(["moved", "moved/mv2.txt", "new", "new/added.txt"]);
    expect(await readFile(path.join(root, "moved/mv2.txt"), "utf8")).toBe("m1\nM2\n");
  });

  it("the same in the Codex form (Add, Delete, Update with Move to)", async () => {
    const root = await workspace({ "del.txt": "gone\n", "mv.txt": "m1\nm2\n" });
    const patch = [
      "*** Begin Patch",
      "*** Add File: c/add.txt",
      "+x",
      "*** Delete File: del.txt",
      "*** Update File: mv.txt",
      "*** Move to: moved/mv3.txt",
      "@@",
      " m1",
      "-m2",
      "+M3",
      "*** End Patch",
    ].join("\n");
    expect(summaryLines(okText(await fileRun(root).call("apply_patch", { patch })))).toEqual([
      "Applied to 3 files, +2 -2:",
      "A c/add.txt (+1 -0)",
      "D del.txt (+0 -1)",
      "R mv.txt -> moved/mv3.txt (+1 -1)",
    ]);
    expect((await readdir(root, { recursive: true })).sort()).toEqual(["c", "c/add.txt", "moved", "moved/mv3.txt"]);
  });

  it("a hunk whose context is wrong lists the patch's lines as they were, the place on a line of its own; nothing changes", async () => {
    const root = await workspace({ "a.txt": "one\ntwo\nthree\n", "b.txt": "b\n" });
    const patch = [
      "--- a/b.txt",
      "+++ b/b.txt",
      "@@ -1 +1 @@",
      "-b",
      "+B",
      "--- a/a.txt",
      "+++ b/a.txt",
      "@@ -1,2 +1,2 @@",
      " ONE",
      "-two",
      "+TWO",
      "",
    ].join("\n");
    const error = modelError(await fileRun(root).call("apply_patch", { patch }), "context_not_found");
    // Old code: "  two (file a.txt, hunk 1) Closest line ...": the place read as part of the patch's line.
    expect(error.message.split("\n")).toEqual([
      "Hunk 1: 2 lines were not found in a.txt:",
      "  ONE",
      "  two",
      '(file a.txt, hunk 1) Closest line 1: "one". No file was changed.',
    ]);
    expect(await readFile(path.join(root, "b.txt"), "utf8")).toBe("b\n");
    // Positive control: the right context applies.
    okText(await fileRun(root).call("apply_patch", { patch: patch.replace(" ONE", " one") }));
    expect(await readFile(path.join(root, "a.txt"), "utf8")).toBe("one\nTWO\nthree\n");
  });

  it("a CRLF patch applies to an LF file and to a CRLF file, each keeping its own line endings", async () => {
    const root = await workspace({ "lf.txt": "one\ntwo\n", "crlf.txt": "one\r\ntwo\r\n" });
    const run = fileRun(root);
    for (const name of ["lf.txt", "crlf.txt"]) {
      const patch = [`--- a/${name}`, `+++ b/${name}`, "@@ -1,2 +1,2 @@", " one", "-two", "+TWO", ""].join("\r\n");
      okText(await run.call("apply_patch", { patch }));
    }
    expect(await readFile(path.join(root, "lf.txt"), "utf8")).toBe("one\nTWO\n");
    expect(await readFile(path.join(root, "crlf.txt"), "utf8")).toBe("one\r\nTWO\r\n");
  });

  it("from CommonJS: the wrong-context message", async () => {
    const root = await workspace({ "a.txt": "one\ntwo\n" });
    const message = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { workspace: ${JSON.stringify(root)} } });
      run.call("apply_patch", { patch: "--- a/a.txt\\n+++ b/a.txt\\n@@ -1,2 +1,2 @@\\n ONE\\n-two\\n+TWO\\n" })
        .then((result) => console.log(JSON.stringify(result.error.message)));`);
    expect(String(message).split("\n").slice(1, 4)).toEqual([
      "  ONE",
      "  two",
      '(file a.txt, hunk 1) Closest line 1: "one". No file was changed.',
    ]);
  });
});

describe("edit and write at their edges", () => {
  it("replace_all on overlapping text replaces left to right without overlap, as sed s///g does", async () => {
    const root = await workspace({ "three.txt": "aaa\n", "four.txt": "aaaa\n" });
    const run = fileRun(root);
    for (const name of ["three.txt", "four.txt"]) {
      okText(await run.call("edit", { path: name, old_text: "aa", new_text: "b", replace_all: true }));
    }
    const sed = (text: string) => execFileSync("sed", ["s/aa/b/g"], { input: text, encoding: "utf8" });
    expect(await readFile(path.join(root, "three.txt"), "utf8")).toBe(sed("aaa\n"));
    expect(await readFile(path.join(root, "four.txt"), "utf8")).toBe(sed("aaaa\n"));
  });

  it("write creates the missing directories of a new file and says what it created", async () => {
    const root = await workspace();
    const text = okText(await fileRun(root).call("write", { path: "x/y z/new.txt", content: "hi" }));
    expect(text).toMatch(/^Created x\/y z\/new\.txt \(2 bytes\) · v_[0-9a-f]{16}$/);
    expect(await readFile(path.join(root, "x/y z/new.txt"), "utf8")).toBe("hi");
  });

  it("one byte is said as one byte in every file tool's result (write, append, edit, read, file_inspect)", async () => {
    const root = await workspace({ "bin.dat": "\u0000" });
    const run = fileRun(root);
    // Old code: "(1 bytes)" in each.
    expect(okText(await run.call("write", { path: "one.txt", content: "x" }))).toMatch(/^Created one\.txt \(1 byte\) · v_/);
    expect(okText(await run.call("write", { path: "one.txt", content: "" }))).toMatch(/^Wrote one\.txt \(0 bytes\) · v_/);
    expect(okText(await run.call("write", { path: "one.txt", content: "y", append: true }))).toMatch(
      /^Appended to one\.txt \(1 byte\) · v_/,
    );
    expect(okText(await run.call("edit", { path: "one.txt", old_text: "y", new_text: "z" }))).toMatch(
      /^Edited one\.txt \(1 byte\) · v_/,
    );
    expect(okText(await run.call("read", { path: "one.txt" })).split("\n")[0]).toMatch(/ · 1 byte$/);
    expect(okText(await run.call("file_inspect", { path: "one.txt" }))).toContain("size: 1 byte\n");
    expect(okText(await run.call("file_inspect", { path: "bin.dat" }))).toContain("hex (first 1 byte):");
    expect(modelError(await run.call("read", { path: "bin.dat" }), "binary_file").message).toContain("(1 byte)");
    expect(okText(await run.call("edit", { path: "one.txt", old_text: "z", new_text: "zz" }))).toMatch(
      /^Edited one\.txt \(2 bytes\) · v_/,
    );
  });

  it('glob names the directory it searched quoted (the root is ".", never ".." with the full stop), and files from the workspace, as read takes them', async () => {
    const root = await workspace({ "d/a b.txt": "x\n" });
    const run = fileRun(root);
    // Old code: 'No files match "*.md" under ..' (the root and the sentence's full stop).
    expect(okText(await run.call("glob", { pattern: "*.md" }))).toBe('No files match "*.md" under ".".');
    // Paths are named from the workspace, as read takes them (old code: "a b.txt", file_not_found when read).
    const found = okText(await run.call("glob", { pattern: "*.txt", path: "d" }));
    expect(found).toBe('1 file matches "*.txt" under "d"\nd/a b.txt');
    expect(okText(await run.call("read", { path: found.split("\n")[1] }))).toContain("1\tx");
    // As grep names them (both engines name matches from the workspace).
    expect(okText(await run.call("grep", { pattern: "x", path: "d", files_only: true })).split("\n")[0]).toBe("d/a b.txt");
    expect(okText(await run.call("glob", { pattern: "**/*.txt", path: "./d/" }))).toBe(
      '1 file matches "**/*.txt" under "d"\nd/a b.txt',
    );
  });

  it("read: offset 0 or negative and limit 0 are invalid_input naming the field; CRLF lines are shown without the CR", async () => {
    const root = await workspace({ "crlf.txt": "one\r\ntwo\r\n" });
    const run = fileRun(root);
    modelError(await run.call("read", { path: "crlf.txt", offset: 0 }), "invalid_input", "offset");
    modelError(await run.call("read", { path: "crlf.txt", offset: -1 }), "invalid_input", "offset");
    modelError(await run.call("read", { path: "crlf.txt", limit: 0 }), "invalid_input", "limit");
    const text = okText(await run.call("read", { path: "crlf.txt" }));
    expect(text.split("\n").slice(1)).toEqual(["     1\tone", "     2\ttwo"]);
  });
});

describe("bash: cwd, timeout, stdin, cut output", () => {
  const bashRun = (root: string, sandbox: "unrestricted" | "workspace", maxOutputBytes?: number) =>
    createRegistry({ tools: [createBashTool(maxOutputBytes === undefined ? {} : { maxOutputBytes })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox },
    });

  it("a cwd outside the workspace runs unrestricted (said as a relative path) and is refused under the workspace sandbox", async () => {
    const root = await workspace();
    const outside = okText(await bashRun(root, "unrestricted").call("bash", { command: "pwd", cwd: ".." }));
    expect(outside.split("\n")[0]).toMatch(/^exit code 0 · \d+ ms · cwd \.\. · sandbox unsandboxed\/unrestricted$/);
    expect(outside).toContain(`stdout:\n${base}`);
    modelError(await bashRun(root, "unrestricted").call("bash", { command: "pwd", cwd: "missing" }), "invalid_command");
  });

  it.each([".."])("under the workspace sandbox, cwd %s is path_outside_workspace", async (cwd) => {
    const root = await workspace();
    const run = bashRun(root, "workspace");
    const result = await run.call("bash", { command: "pwd", cwd });
    if (!result.ok && result.error.code === "sandbox_unavailable") return; // no bubblewrap here: the run says so
    modelError(result, "path_outside_workspace");
  });

  it("a timeout says how long and that it killed; stdin is closed (cat returns at once)", async () => {
    const root = await workspace();
    const run = bashRun(root, "unrestricted");
    const timed = okText(await run.call("bash", { command: "sleep 5", timeout_seconds: 1 }));
    expect(timed.split("\n")[0]).toMatch(/^timed out after 1 s \(killed\) · \d+ ms/);
    const started = performance.now();
    const read = okText(await run.call("bash", { command: "cat; echo rc=$?", timeout_seconds: 10 }));
    expect(read).toMatch(/^exit code 0 .*\nstdout:\nrc=0$/s);
    expect(performance.now() - started).toBeLessThan(9_000);
  });

  it("cut output says how many bytes were cut where, in the singular for one", async () => {
    const root = await workspace();
    const run = bashRun(root, "unrestricted", 20);
    const whole = okText(await run.call("bash", { command: "printf '%020d' 0" }));
    expect(whole).toMatch(/\nstdout:\n0{20}$/);
    const one = okText(await run.call("bash", { command: "printf '%021d' 0" }));
    // Old code: "[... 1 bytes of stdout cut here ...]".
    expect(one).toMatch(
      /\nstdout:\n0{10}\n\[\.\.\. 1 byte of stdout cut here \.\.\.\]\n0{10}\n\[output over the limit was cut\]$/,
    );
    const two = okText(await run.call("bash", { command: "printf '%022d' 0" }));
    expect(two).toContain("[... 2 bytes of stdout cut here ...]");
  });

  it("from CommonJS: one byte cut", async () => {
    const root = await workspace();
    const text = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createBashTool } = require("agent-tool-catalog/tools");
      const run = createRegistry({ tools: [createBashTool({ maxOutputBytes: 20 })] }).createRun({ profile: "full", permissions: { workspace: ${JSON.stringify(root)} } });
      run.call("bash", { command: "printf '%021d' 0" }).then((result) => console.log(JSON.stringify(result.output)));`);
    expect(text).toContain("[... 1 byte of stdout cut here ...]");
  });
});

describe("git_diff_range: ranges, unknown revisions, paths with spaces (against the git CLI)", () => {
  let repo: string;
  const git = (...args: string[]) => execFileSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  let tick = 0;
  const commit = (message: string) =>
    execFileSync("git", ["-C", repo, "commit", "-qam", message], {
      env: {
        ...process.env,
        GIT_COMMITTER_DATE: `${1_700_000_000 + ++tick * 60} +0000`,
        GIT_AUTHOR_DATE: `${1_700_000_000 + tick * 60} +0000`,
      },
    });
  beforeAll(async () => {
    repo = await workspace({ "dir with space/f g.txt": "1\n", "a.txt": "a\n", "b.txt": "b\n" });
    git("init", "-q", "-b", "main");
    git("config", "user.email", "a@example.com");
    git("config", "user.name", "A");
    git("add", ".");
    commit("c1");
    git("tag", "v1");
    await writeFile(path.join(repo, "dir with space/f g.txt"), "2\n");
    commit("main changes f g");
    git("checkout", "-qb", "side", "v1");
    await writeFile(path.join(repo, "a.txt"), "side\n");
    commit("side changes a");
    git("checkout", "-q", "main");
    // Criss-cross: x and y each merge the other's first commit, so x and y have two merge bases.
    git("checkout", "-qb", "x", "v1");
    await writeFile(path.join(repo, "b.txt"), "x1\n");
    commit("x1");
    git("checkout", "-qb", "y", "v1");
    await writeFile(path.join(repo, "a.txt"), "y1\n");
    commit("y1");
    git("checkout", "-q", "x");
    git("merge", "-q", "--no-edit", "y");
    git("checkout", "-q", "y");
    git("merge", "-q", "--no-edit", "x~1");
    await writeFile(path.join(repo, "dir with space/f g.txt"), "y2\n");
    commit("y2");
    git("checkout", "-q", "x");
    await writeFile(path.join(repo, "b.txt"), "x2\n");
    commit("x2");
    git("checkout", "-q", "main");
    git("checkout", "-q", "--orphan", "unrelated");
    git("rm", "-rqf", ".");
    await writeFile(path.join(repo, "u.txt"), "u\n");
    git("add", ".");
    commit("unrelated");
    git("checkout", "-q", "main");
  });

  const gitRun = () => {
    const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: repo } });
    run.activate([...GIT_TOOL_NAMES]);
    return run;
  };
  const diff = async (args: Record<string, unknown>) => ok(await gitRun().call("git_diff_range", args)) as DiffRangeOutput;
  const names = (range: string) => git("diff", "--name-only", range).split("\n").filter(Boolean);

  it("A..B is from A to B, as git diff A..B", async () => {
    const ranged = await diff({ from: "v1..side" });
    const given = await diff({ from: "v1", to: "side" });
    expect(ranged.files).toEqual(given.files);
    expect(ranged.diff).toBe(given.diff);
    expect(ranged.diff).toBe(git("diff", "v1..side"));
    expect((await diff({ from: "side.." })).files).toEqual((await diff({ from: "side", to: "HEAD" })).files);
  });

  it("A...B is from the merge base of A and B to B: what B changed since it forked, as git diff A...B", async () => {
    const ranged = await diff({ from: "main...side" });
    expect(ranged.files.map((file) => file.path)).toEqual(names("main...side"));
    expect(ranged.diff).toBe(git("diff", "main...side"));
    expect(ranged.from).toBe(`merge base of main...side (${git("merge-base", "main", "side").trim().slice(0, 10)})`);
    expect(ranged.to).toMatch(/^side \([0-9a-f]{10}\)$/);
    // Two dots would also undo main's own change; three do not.
    expect((await diff({ from: "main..side" })).files.map((file) => file.path)).toEqual(["a.txt", "dir with space/f g.txt"]);
    // An empty end is HEAD (main).
    expect((await diff({ from: "side..." })).diff).toBe(git("diff", "side..."));
    expect((await diff({ from: "...side" })).diff).toBe(git("diff", "...side"));
  });

  it("A...B with two merge bases (criss-cross) takes the one git diff takes", async () => {
    expect(git("merge-base", "--all", "x", "y").trim().split("\n")).toHaveLength(2);
    for (const range of ["x...y", "y...x"]) {
      const ranged = await diff({ from: range });
      expect(ranged.diff, range).toBe(git("diff", range));
    }
  });

  it("unrelated histories are no_merge_base; a range with to is invalid_input naming to; an unknown end is unknown_ref", async () => {
    const run = gitRun();
    const unrelated = modelError(await run.call("git_diff_range", { from: "main...unrelated" }), "no_merge_base");
    expect(unrelated.message).toContain("main...unrelated");
    // Positive control: two dots compare them directly.
    expect((await diff({ from: "main..unrelated" })).files.map((file) => file.path)).toEqual(names("main..unrelated"));
    modelError(await run.call("git_diff_range", { from: "v1..side", to: "main" }), "invalid_input", "to");
    const unknown = modelError(await run.call("git_diff_range", { from: "v1...nope" }), "unknown_ref");
    expect(unknown.message).toContain('"nope"');
    modelError(await run.call("git_diff_range", { from: "v1", to: "nope~3" }), "unknown_ref");
  });

  it("a path with spaces: the diff text is git's, a tab after such names included", async () => {
    const byPath = await diff({ from: "v1", to: "main", path: "dir with space/f g.txt" });
    expect(byPath.files.map((file) => file.path)).toEqual(["dir with space/f g.txt"]);
    expect(byPath.diff).toBe(git("diff", "v1", "main", "--", "dir with space/f g.txt"));
    expect(byPath.diff).toContain("--- a/dir with space/f g.txt\t\n");
    expect((await diff({ from: "v1", to: "main", path: "dir with space" })).diff).toBe(byPath.diff);
  });

  it("a path no commit ever changed is path_not_found for contributors as for file history; within since, none is an answer", async () => {
    const run = gitRun();
    for (const tool of ["git_file_history", "git_contributor_context"]) {
      const error = modelError(await run.call(tool, { path: "nope.txt" }), "path_not_found");
      expect(error.message, tool).toBe('No commit reachable from HEAD ever changed "nope.txt".');
    }
    // Old code: {"contributors": [], "total_commits": 0} for a misspelled path.
    const window = ok(await run.call("git_contributor_context", { path: "nope.txt", since: "2000-01-01" })) as {
      contributors: unknown[];
    };
    expect(window.contributors).toEqual([]);
    // Positive control: a real path counts its author, as git shortlog does.
    const real = ok(await run.call("git_contributor_context", { path: "dir with space" })) as { total_commits: number };
    expect(real.total_commits).toBe(Number(git("rev-list", "--count", "HEAD", "--", "dir with space").trim()));
  });

  it("blame of the repository root names it as the model did (.), not as an empty name", async () => {
    const error = modelError(await gitRun().call("git_blame_context", { path: ".", line: 1 }), "not_a_file");
    // Old code: '"" is a directory, not a file.'
    expect(error.message).toBe('"." is a directory, not a file.');
    expect(modelError(await gitRun().call("git_blame_context", { path: "dir with space", line: 1 }), "not_a_file").message).toBe(
      '"dir with space" is a directory, not a file.',
    );
  });

  it("from CommonJS: A...B", async () => {
    const output = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createGitTools, GIT_TOOL_NAMES } = require("agent-tool-catalog/git");
      const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: ${JSON.stringify(repo)} } });
      run.activate([...GIT_TOOL_NAMES]);
      run.call("git_diff_range", { from: "main...side" }).then((result) => console.log(JSON.stringify(result.output.diff)));`);
    expect(output).toBe(git("diff", "main...side"));
  });
});

describe("find_tool: a query of common words only", () => {
  it("activates nothing and says so, with no tool named as not found", async () => {
    const run = createRegistry({ tools: createGitTools() }).createRun({});
    for (const query of ["the and of to", "how do I"]) {
      const found = ok(await run.call("find_tool", { query })) as { activated: unknown[]; not_found: unknown[]; message: string };
      expect(found.activated, query).toEqual([]);
      expect(found.not_found, query).toEqual([]);
      expect(found.message).toMatch(/^No matching tool\./);
    }
    // Positive control: a content word finds the git tools.
    const found = ok(await run.call("find_tool", { query: "the blame of a line" })) as { activated: { name: string }[] };
    expect(found.activated.map((tool) => tool.name)).toContain("git_blame_context");
  });

  it("from CommonJS: common words only", () => {
    const found = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createGitTools } = require("agent-tool-catalog/git");
      createRegistry({ tools: createGitTools() }).createRun({}).call("find_tool", { query: "the and of to" })
        .then((result) => console.log(JSON.stringify(result.output)));`) as { activated: unknown[]; message: string };
    expect(found.activated).toEqual([]);
    expect(found.message).toMatch(/^No matching tool\./);
  });
});

describe("profile and load-mode precedence: the run's options over the environment over the [tools] table", () => {
  const tool = (name: string) =>
    defineTool({ name, description: `${name}.`, inputSchema: { type: "object" }, handler: () => name });
  const registry = () => createRegistry({ tools: [tool("read"), tool("write")] });
  const sent = (run: Run) => run.definitions().map((definition) => definition.name);
  const config = parseToolConfig('[tools]\nprofile = "minimal"\n');

  it("an empty AGENT_TOOL_PROFILE is unset; case and spaces are refused; the option is taken without looking at it", () => {
    expect(registry().createRun({ environment: { AGENT_TOOL_PROFILE: "" } }).loading.profile).toBe("core");
    expect(registry().createRun({ environment: { AGENT_TOOL_PROFILE: "" }, config }).loading.profile).toBe("minimal");
    for (const value of ["FULL", " full "]) {
      expect(() => registry().createRun({ environment: { AGENT_TOOL_PROFILE: value } }), value).toThrowError(
        /AGENT_TOOL_PROFILE must be one of core, full, acp, minimal, lite, none/,
      );
    }
    expect(registry().createRun({ profile: "full", environment: { AGENT_TOOL_PROFILE: "bogus" } }).loading.profile).toBe("full");
    expect(
      registry().createRun({ profile: undefined as never, environment: { AGENT_TOOL_PROFILE: "acp" } }).loading.profile,
    ).toBe("acp");
  });

  it("loadModes and disabledTools of the run override [tools.load_mode] and [tools] disabled; within one layer off wins", () => {
    const offInConfig = parseToolConfig('[tools.load_mode]\nread = "off"\n');
    const disabledInConfig = parseToolConfig('[tools]\ndisabled = ["read"]\n');
    const essentialInConfig = parseToolConfig('[tools.load_mode]\nread = "essential"\n');
    const run = (options: Parameters<ReturnType<typeof registry>["createRun"]>[0]) =>
      registry().createRun({ profile: "full", environment: {}, ...options });
    expect(sent(run({ config: offInConfig }))).toEqual(["find_tool", "write"]);
    expect(sent(run({ config: offInConfig, loadModes: { read: "essential" } }))).toEqual(["find_tool", "read", "write"]);
    expect(sent(run({ config: disabledInConfig, loadModes: { read: "essential" } }))).toEqual(["find_tool", "read", "write"]);
    expect(sent(run({ config: essentialInConfig, disabledTools: ["read"] }))).toEqual(["find_tool", "write"]);
    expect(sent(run({ loadModes: { read: "essential" }, disabledTools: ["read"] }))).toEqual(["find_tool", "write"]);
    expect(
      sent(run({ config: parseToolConfig('[tools]\ndisabled = ["read"]\n[tools.load_mode]\nread = "essential"\n') })),
    ).toEqual(["find_tool", "write"]);
  });

  it("from CommonJS: the run's load mode over the config's", () => {
    const names = runCommonJs(`
      const { createRegistry, defineTool, parseToolConfig } = require("agent-tool-catalog");
      const tool = (name) => defineTool({ name, description: name + ".", inputSchema: { type: "object" }, handler: () => name });
      const config = parseToolConfig('[tools.load_mode]\\nread = "off"\\n');
      const run = createRegistry({ tools: [tool("read"), tool("write")] }).createRun({ profile: "full", environment: {}, config, loadModes: { read: "essential" } });
      console.log(JSON.stringify(run.definitions().map((d) => d.name)));`);
    expect(names).toEqual(["find_tool", "read", "write"]);
  });
});
