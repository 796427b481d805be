/**
 * Rounds 19 and 20's attack on the git tools' confined reader: a sandboxed command plants links
 * in `.git/refs/heads` that lead out of the workspace, and `git_diff_range` is asked from each
 * planted branch, its answers compared (they must not tell what exists on the host).
 */
import type { SandboxScope, ToolCallResult } from "agent-tool-catalog";
import { expect } from "vitest";
import { gitRun } from "../../git/support/git-run.js";
import { attackRun, quote, sh } from "./sandbox-harness.js";

/** What a call answered, without its call id (the same refusal must read the same). */
export const answer = (result: ToolCallResult): string =>
  result.ok ? `ok:${JSON.stringify(result.output)}` : `${result.error.code}:${result.error.message}:${result.error.hint ?? ""}`;

/**
 * A command run in `workspace` under `sandbox` links `.git/refs/heads/<name>` to each target
 * (`ln -s`), as a model would.
 */
export async function plantRefLinks(
  workspace: string,
  sandbox: SandboxScope,
  links: Readonly<Record<string, string>>,
): Promise<void> {
  const command = Object.entries(links)
    .map(([name, target]) => `ln -s ${quote(target)} .git/refs/heads/${name}`)
    .join(" && ");
  const result = await sh(attackRun(workspace, sandbox), `${command} && echo planted`);
  expect(result.stdout.trim(), result.stderr).toBe("planted");
}

/** The answers of `git_diff_range` in `workspace` from each branch, under `sandbox` (each branch's name shown as `<b>`). */
export async function diffRangeAnswers(workspace: string, sandbox: SandboxScope, branches: readonly string[]): Promise<string[]> {
  const run = gitRun(workspace, {}, sandbox);
  const shown: string[] = [];
  for (const from of branches) shown.push(answer(await run.call("git_diff_range", { from })).replaceAll(from, "<b>"));
  return shown;
}
