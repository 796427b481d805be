import type { RunScope } from "../tool/run-scope.js";
import { childWorkspaceOutside } from "./child-workspaces.js";
import { APPROVAL_STRENGTH, SANDBOX_STRENGTH } from "./narrow-permissions.js";

/**
 * Why `saved` is not within `caller`, or `undefined` when it is: saved work (a workflow run's
 * scope, taken when it started) may be continued by a caller only if the caller could have
 * granted every part of it. A saved scope is within the caller's when its sandbox and approval
 * are at least as strict, its workspace is the caller's or inside it (as `narrowPermissions`
 * checks a child's, as text and on disk), every tool it allows is allowed to the caller, and it
 * is at least as deep (a fork-depth limit counts from it). A check only: unlike
 * `narrowPermissions`, it remembers no child workspace and cannot fail for a full record.
 */
export function scopeOutside(saved: RunScope, caller: RunScope): string | undefined {
  const mine = saved.permissions;
  const theirs = caller.permissions;
  if (theirs.workspace !== undefined && mine.workspace === undefined) {
    return `its workspace is unrestricted; yours is ${theirs.workspace}`;
  }
  if (theirs.workspace !== undefined && mine.workspace !== undefined && mine.workspace !== theirs.workspace) {
    if (childWorkspaceOutside(mine.workspace, theirs.workspace) !== undefined) {
      return `its workspace ${mine.workspace} is outside yours (${theirs.workspace})`;
    }
  }
  if (SANDBOX_STRENGTH[mine.sandbox] < SANDBOX_STRENGTH[theirs.sandbox]) {
    return `its sandbox "${mine.sandbox}" is wider than yours ("${theirs.sandbox}")`;
  }
  if (APPROVAL_STRENGTH[mine.approval] < APPROVAL_STRENGTH[theirs.approval]) {
    return `its approval "${mine.approval}" is looser than yours ("${theirs.approval}")`;
  }
  if (caller.allowedTools !== undefined) {
    if (saved.allowedTools === undefined) return "it may use every tool; you may not";
    const allowed = new Set(caller.allowedTools);
    const extra = saved.allowedTools.filter((name) => !allowed.has(name));
    if (extra.length > 0) return `it may use tools you may not (${extra.join(", ")})`;
  }
  if (saved.depth < caller.depth) return `it is at depth ${saved.depth}, shallower than yours (${caller.depth})`;
  return undefined;
}

/** What a refused resumption tells the model: the message, hint and data of a `resume_refused` `ToolError`. */
export interface ResumeRefusal {
  readonly message: string;
  readonly hint: string;
  readonly data: { readonly reason: string };
}

/**
 * The refusal of resuming run `runId` (saved with scope `saved`) from a caller with scope
 * `caller`, or `undefined` when it may go on: a run that shares the conversation id of a wider
 * one must not continue with the wider one's permissions. No caller scope (host code) is not checked.
 */
export function resumeRefusal(runId: string, saved: RunScope, caller: RunScope | undefined): ResumeRefusal | undefined {
  const reason = caller === undefined ? undefined : scopeOutside(saved, caller);
  if (reason === undefined) return undefined;
  return {
    message: `Workflow run ${runId} was started with more permissions than this run has (${reason}); it cannot be resumed from here.`,
    hint: "Resume it from the run that started it (or one with at least its permissions), or start a new run of the workflow here.",
    data: { reason },
  };
}
