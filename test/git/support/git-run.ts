import { createRegistry, type Run, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { createGitTools, GIT_TOOL_NAMES, type GitToolOptions } from "../../../src/git/index.js";

/** A run over `workspace` with every git tool registered and activated. */
export function gitRun(workspace: string | undefined, options: GitToolOptions = {}, sandbox: SandboxScope = "unrestricted"): Run {
  const registry = createRegistry({ tools: createGitTools(options) });
  const run = registry.createRun(workspace === undefined ? {} : { permissions: { workspace, sandbox } });
  const outcome = run.activate([...GIT_TOOL_NAMES]);
  if (outcome.activated.length !== GIT_TOOL_NAMES.length) throw new Error(`could not activate: ${JSON.stringify(outcome)}`);
  return run;
}

/** The output of a successful call, typed by the caller. */
export function output<Output>(result: ToolCallResult): Output {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return result.output as Output;
}

/** The error of a failed call. */
export function failure(result: ToolCallResult) {
  if (result.ok) throw new Error(`expected failure, got ${JSON.stringify(result.output).slice(0, 500)}`);
  return result.error;
}
