import { parseCodexPatch } from "./codex-patch-parser.js";
import type { FileOperation } from "./file-operation.js";
import type { Outcome } from "./patch-error.js";
import { parseUnifiedDiff } from "./unified-diff-parser.js";

let last:
  | { readonly kind: "codex" | "unified"; readonly text: string; readonly parsed: Outcome<readonly FileOperation[]> }
  | undefined;

/**
 * The operations of a patch text, parsed once per text: the preflight (the paths to check) and
 * the plan of the same call parse the same megabytes, and a replan under the locks parses them
 * again. The parse is pure and its result is only read, so the last one is kept.
 */
export function parsePatch(kind: "codex" | "unified", text: string): Outcome<readonly FileOperation[]> {
  if (last !== undefined && last.kind === kind && last.text === text) return last.parsed;
  const parsed = kind === "codex" ? parseCodexPatch(text) : parseUnifiedDiff(text);
  last = { kind, text, parsed };
  return parsed;
}
