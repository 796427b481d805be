/**
 * The git history tools as the git-metadata escape attempts call them: every tool once, each
 * asked something a planted repository would answer, so that a layout leading outside the
 * workspace is tried against every reader (log, history, blame, diff, contributors).
 */
import { mkdirSync } from "node:fs";
import type { SandboxScope, ToolCallResult } from "agent-tool-catalog";
import { expect } from "vitest";
import { FixtureRepository, git } from "../../git/support/git-fixture.js";
import { gitRun } from "../../git/support/git-run.js";

/** One git tool call: the tool's name and the model's input. */
export type GitToolCall = readonly [name: string, input: Record<string, unknown>];

/** A call's tool name and what it answered. */
export interface GitToolAnswer {
  readonly name: string;
  readonly result: ToolCallResult;
}

/** A call that takes longer than this is a hang (a loop the tools should have ended), not slowness. */
const CALL_LIMIT_MS = 10_000;

/**
 * The five git tools, each asked about a repository whose commit messages hold `query` and
 * whose second commit changed file `path` (its first line is blamed).
 */
export function gitToolCalls(query: string, path: string): readonly GitToolCall[] {
  return [
    ["git_log_search", { query }],
    ["git_file_history", { path }],
    ["git_blame_context", { path, line: 1 }],
    ["git_diff_range", { from: "HEAD~1" }],
    ["git_contributor_context", {}],
  ];
}

/**
 * A new two-commit repository in `directory` whose second commit writes `secret` into
 * `secret.txt` (with `secret` in its message): what `gitToolCalls(secret, "secret.txt")` asks about.
 */
export function makeSecretRepository(directory: string, secret: string): FixtureRepository {
  const author = { name: "Outsider", email: "outsider@example.com" };
  mkdirSync(directory, { recursive: true });
  git(directory, ["init", "-q"]);
  const repository = new FixtureRepository(directory);
  repository.write("secret.txt", "public\n").commit("first", author);
  repository.write("secret.txt", `${secret}\n`).commit(`add ${secret}`, author);
  return repository;
}

/** Makes every call in one git run over `workspace` under `sandbox`, each within 10 s. */
export async function callGitTools(
  workspace: string,
  sandbox: SandboxScope,
  calls: readonly GitToolCall[],
): Promise<GitToolAnswer[]> {
  const run = gitRun(workspace, {}, sandbox);
  const answers: GitToolAnswer[] = [];
  for (const [name, input] of calls) {
    const started = performance.now();
    answers.push({ name, result: await run.call(name, input) });
    expect(performance.now() - started, name).toBeLessThan(CALL_LIMIT_MS);
  }
  return answers;
}

/**
 * Every call fails with one of `codes`, and no answer shows any of `hidden` (the outside
 * repository's secret or its directory).
 */
export async function expectGitToolsFailed(
  workspace: string,
  sandbox: SandboxScope,
  calls: readonly GitToolCall[],
  codes: readonly string[],
  hidden: readonly string[],
): Promise<void> {
  for (const { name, result } of await callGitTools(workspace, sandbox, calls)) {
    const text = JSON.stringify(result);
    expect(result.ok, `${name} (${sandbox}) must fail: ${text.slice(0, 300)}`).toBe(false);
    if (!result.ok) expect(codes, `${name} (${sandbox}): ${text.slice(0, 300)}`).toContain(result.error.code);
    for (const secret of hidden) expect(text).not.toContain(secret);
  }
}

/**
 * Every call answers, and a log search for `query` shows it: the layout really reaches the
 * repository (a positive control, so that a refusal elsewhere is the sandbox's, not a broken setup).
 */
export async function expectGitToolsAnswered(
  workspace: string,
  sandbox: SandboxScope,
  calls: readonly GitToolCall[],
  query: string,
): Promise<void> {
  for (const { name, result } of await callGitTools(workspace, sandbox, calls)) {
    expect(result.ok, `${name} (${sandbox}): ${JSON.stringify(result).slice(0, 300)}`).toBe(true);
  }
  const search = await gitRun(workspace, {}, sandbox).call("git_log_search", { query });
  expect(JSON.stringify(search)).toContain(query);
}
