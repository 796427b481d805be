// Helpers shared by the planPatch tests (not part of the package: no entry imports it).

import type { FileChange } from "./file-change.js";
import { textOf } from "./file-content.js";
import type { FileReader } from "./file-reader.js";
import type { PatchError } from "./patch-error.js";
import type { PlanResult } from "./plan-patch.js";

/** An in-memory workspace that records which paths were read. */
export function files(contents: Record<string, string>): FileReader & { reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    read: async (path) => {
      reads.push(path);
      return Object.hasOwn(contents, path) ? contents[path] : undefined;
    },
  };
}

/** The changes of a plan that must have succeeded. */
export function changesOf(result: PlanResult): readonly FileChange[] {
  if (!result.ok) throw new Error(`expected a plan, got ${result.error.code}: ${result.error.message}`);
  return result.changes;
}

/** The error of a plan that must have failed. */
export function errorOf(result: PlanResult): PatchError {
  if (result.ok) throw new Error("expected the plan to fail");
  return result.error;
}

/** The content the plan's single change leaves, which must be an update. */
export function updatedContentOf(result: PlanResult): string {
  const [change] = changesOf(result);
  if (change?.type !== "update") throw new Error(`expected an update, got ${change?.type}`);
  return textOf(change.content);
}
