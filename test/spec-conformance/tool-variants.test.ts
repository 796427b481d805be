/**
 * Spec conformance, variants (/work/shared/spec/agent-tool-catalog.md "Core tools", "Git and code
 * intelligence", "Scheduling", "Enabling conditions"): read's line numbering, offsets and limits at
 * the edges of a file (empty, no final newline, CRLF, blank lines, offset past the end), git_log_search
 * with queries that look like patterns or options, directory paths and exact instants, and the
 * host groups' conditions crossed (cron on without a client, callbacks without a conversation),
 * through the package entries. Statement table: docs/spec-conformance.md.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolGroup } from "agent-tool-catalog";
import { createGitTools, GIT_TOOL_NAMES } from "agent-tool-catalog/git";
import {
  callbackToolGroup,
  cronToolGroup,
  InProcessCallbackManager,
  InProcessCronScheduler,
  ManualClock,
  webToolGroup,
} from "agent-tool-catalog/host";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyPageFetcher, modelError, ok, okRunner, okText } from "./support.js";

let workspace: string;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-spec-variants-"));
});
afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("read: numbering, offset and limit at the edges of a file", () => {
  const fileRun = () =>
    createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } });
  /** The numbered lines of a read: [number, text]. */
  const numbered = (output: string) =>
    output
      .split("\n")
      .flatMap((line) => (/^ *\d+\t/.test(line) ? [[Number(line.split("\t")[0]), line.slice(line.indexOf("\t") + 1)]] : []));

  it.each([
    [
      "no final newline",
      "a\nb",
      [
        [1, "a"],
        [2, "b"],
      ],
    ],
    [
      "CRLF",
      "a\r\nb\r\nc\r\n",
      [
        [1, "a"],
        [2, "b"],
        [3, "c"],
      ],
    ],
    [
      "CRLF and a final line without one",
      "a\r\nb",
      [
        [1, "a"],
        [2, "b"],
      ],
    ],
    [
      "only blank lines",
      "\n\n\n",
      [
        [1, ""],
        [2, ""],
        [3, ""],
      ],
    ],
    ["one newline", "\n", [[1, ""]]],
    ["a tab-indented line", "\tx\n", [[1, "\tx"]]],
  ] as const)("%s: one numbered line per line, no carriage return, no phantom last line", async (name, content, lines) => {
    await writeFile(path.join(workspace, "edge.txt"), content);
    const output = okText(await fileRun().call("read", { path: "edge.txt" }));
    expect(numbered(output), name).toEqual(lines);
    expect(output).toContain(`lines 1-${lines.length} of ${lines.length}`);
    expect(output).not.toContain("\r");
    expect(output).not.toContain("[more:");
  });

  it("an empty file reads as empty; any offset past line 1 is offset_out_of_range", async () => {
    await writeFile(path.join(workspace, "empty.txt"), "");
    const run = fileRun();
    const output = okText(await run.call("read", { path: "empty.txt" }));
    expect(output).toContain("empty file");
    expect(numbered(output)).toEqual([]);
    modelError(await fileRun().call("read", { path: "empty.txt", offset: 2 }), "offset_out_of_range");
  });

  it("offset at the last line reads it; one past is offset_out_of_range naming the range; limit at, under and over the rest", async () => {
    await writeFile(path.join(workspace, "three.txt"), "1\n2\n3\n");
    const run = fileRun();
    expect(numbered(okText(await run.call("read", { path: "three.txt", offset: 3 })))).toEqual([[3, "3"]]);
    const past = modelError(await fileRun().call("read", { path: "three.txt", offset: 4 }), "offset_out_of_range");
    expect(`${past.message} ${past.hint}`).toContain("3");
    // Exactly the rest: no continuation hint; one under: the hint names the next line.
    const exact = okText(await fileRun().call("read", { path: "three.txt", offset: 2, limit: 2 }));
    expect(numbered(exact)).toEqual([
      [2, "2"],
      [3, "3"],
    ]);
    expect(exact).not.toContain("[more:");
    const under = okText(await fileRun().call("read", { path: "three.txt", limit: 2 }));
    expect(under).toContain("[more: continue with offset=3]");
    expect(numbered(okText(await fileRun().call("read", { path: "three.txt", limit: 1000 })))).toHaveLength(3);
    for (const limit of [0, -1, 1.5, "2", null]) {
      modelError(await fileRun().call("read", { path: "three.txt", limit }), "invalid_input", "limit");
    }
    for (const offset of [0, -1, 2.5, "2"]) {
      modelError(await fileRun().call("read", { path: "three.txt", offset }), "invalid_input", "offset");
    }
  });
});

describe("apply_patch unified diffs at the end of a file", () => {
  const diff = (name: string, hunk: string) => `--- a/${name}\n+++ b/${name}\n${hunk}`;
  it.each([
    [
      "a last line without newline, changed",
      "a\nb",
      "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
      "a\nc",
    ],
    ["a final newline added", "a\nb", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n", "a\nb\n"],
    ["a final newline removed", "a\nb\n", "@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n", "a\nb"],
    ["an empty file filled", "", "@@ -0,0 +1 @@\n+x\n", "x\n"],
    ["a file emptied", "x\n", "@@ -1 +0,0 @@\n-x\n", ""],
    ["an LF diff on a CRLF file keeps CRLF", "a\r\nb\r\n", "@@ -1,2 +1,2 @@\n a\n-b\n+c\n", "a\r\nc\r\n"],
  ] as const)("%s", async (_name, before, hunk, after) => {
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    await writeFile(path.join(workspace, "tail.txt"), before);
    okText(await run.call("apply_patch", { patch: diff("tail.txt", hunk) }));
    expect(await readFile(path.join(workspace, "tail.txt"), "utf8")).toBe(after);
  });
});

describe("git_log_search variants: literal queries, option-like text, directories, instants", () => {
  let repository: string;
  let run: Run;
  beforeAll(async () => {
    repository = await mkdtemp(path.join(tmpdir(), "atc-spec-git-variants-"));
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: repository,
        env: { ...process.env, GIT_AUTHOR_DATE: "2024-01-01T00:00:00Z", GIT_COMMITTER_DATE: "2024-01-01T00:00:00Z" },
      });
    git("init", "-q", "-b", "main");
    git("config", "user.email", "spec@example.com");
    git("config", "user.name", "Spec");
    await mkdir(path.join(repository, "dir"));
    await writeFile(path.join(repository, "dir/a.txt"), "alpha (paren [x] a.b\n");
    git("add", ".");
    git("commit", "-qm", "fix(core): a.b [x] --all first");
    await writeFile(path.join(repository, "b.txt"), "beta\n");
    git("add", ".");
    git("commit", "-qm", "axb second\n\nThe body mentions Zebra.");
    await writeFile(path.join(repository, "dir/a.txt"), "alpha\n");
    git("add", ".");
    git("commit", "-qm", "-S third");
    run = createRegistry({ tools: createGitTools() }).createRun({ profile: "full", permissions: { workspace: repository } });
    run.activate([...GIT_TOOL_NAMES]);
  });
  afterAll(async () => {
    await rm(repository, { recursive: true, force: true });
  });
  const subjects = async (input: Record<string, unknown>) =>
    (ok(await run.call("git_log_search", input)) as { commits: { subject?: string; message?: string }[] }).commits.map(
      (commit) => (commit.subject ?? commit.message ?? "").split("\n")[0],
    );

  it("message mode is a fixed string, case-insensitive, over the whole message (git log -i -F --grep)", async () => {
    // "a.b" as a pattern would also match "axb".
    expect(await subjects({ query: "a.b", mode: "message" })).toEqual(["fix(core): a.b [x] --all first"]);
    expect(await subjects({ query: "fix(core)", mode: "message" })).toEqual(["fix(core): a.b [x] --all first"]);
    expect(await subjects({ query: "[X]", mode: "message" })).toEqual(["fix(core): a.b [x] --all first"]);
    expect(await subjects({ query: "zebra", mode: "message" })).toEqual(["axb second"]);
  });

  it("queries that look like options are text, in every mode", async () => {
    expect(await subjects({ query: "--all", mode: "message" })).toEqual(["fix(core): a.b [x] --all first"]);
    expect(await subjects({ query: "-S", mode: "message" })).toEqual(["-S third"]);
    expect(await subjects({ query: "-S" })).toEqual(["-S third"]);
    // Pickaxe: "[x]" was added in the first commit and removed in the third.
    expect(await subjects({ query: "[x]", mode: "pickaxe" })).toEqual(["-S third", "fix(core): a.b [x] --all first"]);
  });

  it("path: a directory (with or without /), a file inside, and an absolute path inside; outside is refused", async () => {
    for (const scope of ["dir", "dir/", "dir/a.txt", path.join(repository, "dir")]) {
      expect(await subjects({ query: "alpha", mode: "pickaxe", path: scope }), scope).toEqual(["fix(core): a.b [x] --all first"]);
    }
    expect(await subjects({ query: "alpha", path: "missing.txt" })).toEqual([]);
    modelError(await run.call("git_log_search", { query: "alpha", path: "../elsewhere" }), "path_outside_repository");
  });

  it("since: an instant is inclusive to the second; a future date finds nothing; empty is invalid_input", async () => {
    expect(await subjects({ query: "first", since: "2024-01-01T00:00:00Z" })).toEqual(["fix(core): a.b [x] --all first"]);
    expect(await subjects({ query: "first", since: "2024-01-01T00:00:01Z" })).toEqual([]);
    expect(await subjects({ query: "first", since: "2099-01-01" })).toEqual([]);
    modelError(await run.call("git_log_search", { query: "first", since: "" }), "invalid_input", "since");
    modelError(await run.call("git_log_search", { query: "first", since: "2024-13-45" }), "invalid_since");
    modelError(await run.call("git_log_search", { query: "first", mode: "MESSAGE" }), "invalid_input", "mode");
  });
});

describe("host groups: conditions crossed", () => {
  const registered = (groups: readonly ToolGroup[]) =>
    createRegistry({ groups })
      .list()
      .map((tool) => tool.name)
      .filter((name) => name !== "find_tool" && name !== "toolbox");

  it("cron with EnableCron on but no client, callbacks with the switch on but no manager: absent, silently", () => {
    expect(registered([cronToolGroup({ enableCron: true })])).toEqual([]);
    expect(registered([callbackToolGroup({ enableCallbacks: true })])).toEqual([]);
    expect(
      registered([
        callbackToolGroup({ manager: new InProcessCallbackManager({ onFire: () => undefined }), enableCallbacks: false }),
      ]),
    ).toEqual([]);
    // Positive controls: with a client / manager and the switch on (or left at its default).
    expect(registered([cronToolGroup({ enableCron: true, client: new InProcessCronScheduler() })])).toHaveLength(6);
    expect(registered([callbackToolGroup({ manager: new InProcessCallbackManager({ onFire: () => undefined }) })])).toHaveLength(
      3,
    );
  });

  it("web: the fetcher alone gives web_fetch; web_search needs a searcher, agentic_fetch an agent runner", () => {
    const base = { enableAgent: true, enableWebOps: true, fetcher: emptyPageFetcher };
    expect(registered([webToolGroup(base)])).toEqual(["web_fetch"]);
    expect(registered([webToolGroup({ ...base, searcher: { search: async () => [] }, agentRunner: okRunner })]).sort()).toEqual(
      ["agentic_fetch", "web_fetch", "web_search"].sort(),
    );
    expect(registered([webToolGroup({ ...base, enableWebOps: false, searcher: { search: async () => [] } })])).toEqual([]);
  });

  it("cron pause/resume/delete in every state: the status the spec names, a wrong transition is invalid_job_state", async () => {
    const scheduler = new InProcessCronScheduler({
      clock: new ManualClock(Date.UTC(2025, 0, 1)),
      runShell: async () => ({ exitCode: 0, output: "" }),
    });
    const registry = createRegistry({ groups: [cronToolGroup({ client: scheduler })] });
    const run = registry.createRun({ profile: "full" });
    run.activate(registry.list({ tier: "deferred" }).map((tool) => tool.name));
    const job = { name: "nightly", schedule: "0 3 * * *", execution_type: "shell", command: "make report" };
    const { id } = ok(await run.call("cron_create", job)) as { id: string };
    expect(ok(await run.call("cron_pause", { id }))).toMatchObject({ status: "paused" });
    modelError(await run.call("cron_pause", { id }), "invalid_job_state");
    expect(ok(await run.call("cron_resume", { id }))).toMatchObject({ status: "active" });
    modelError(await run.call("cron_resume", { id }), "invalid_job_state");
    expect(ok(await run.call("cron_delete", { id }))).toMatchObject({ status: "deleted" });
    // Soft delete: still readable by id, gone from the list, no transition out of it, its name free again.
    expect(ok(await run.call("cron_get", { id }))).toMatchObject({ id, status: "deleted" });
    expect(ok(await run.call("cron_list", {}))).toEqual([]);
    for (const tool of ["cron_pause", "cron_resume", "cron_delete"])
      modelError(await run.call(tool, { id }), "invalid_job_state");
    expect(ok(await run.call("cron_create", job))).toMatchObject({ name: "nightly", status: "active" });
    // Names compare trimmed and exactly: " nightly " is taken, "Nightly" is another name.
    modelError(await run.call("cron_create", { ...job, name: " nightly " }), "duplicate_job_name");
    ok(await run.call("cron_create", { ...job, name: "Nightly" }));
  });

  it("a run without a conversation id: its callbacks and cron jobs belong to the run, counted apart from others", async () => {
    const manager = new InProcessCallbackManager({ clock: new ManualClock(Date.UTC(2025, 0, 1)), onFire: () => undefined });
    const registry = createRegistry({ groups: [callbackToolGroup({ manager })] });
    const runA = registry.createRun({ profile: "full" });
    const runB = registry.createRun({ profile: "full" });
    for (const run of [runA, runB]) run.activate(["set_delayed_callback", "list_delayed_callbacks", "cancel_delayed_callback"]);
    const set = ok(await runA.call("set_delayed_callback", { delay_seconds: 5, message: "ping" })) as { id: string };
    expect(ok(await runA.call("list_delayed_callbacks", {}))).toHaveLength(1);
    expect(ok(await runB.call("list_delayed_callbacks", {}))).toHaveLength(0);
    modelError(await runB.call("cancel_delayed_callback", { id: set.id }), "unknown_callback");
    for (const message of ["", " "]) {
      modelError(await runA.call("set_delayed_callback", { delay_seconds: 5, message }), "invalid_input", "message");
    }
  });
});
