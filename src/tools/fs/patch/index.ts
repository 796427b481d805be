export { detectPatchKind } from "./detect-patch-kind.js";
export type { FileChange, FileChangeSummary, PatchSummary } from "./file-change.js";
export { bytesOf, type FileContent, textOf, writableOf } from "./file-content.js";
export type { FileReader } from "./file-reader.js";
export type { Outcome, PatchError, PatchErrorCode, PatchErrorLine } from "./patch-error.js";
export type { PatchInput, TextEdit } from "./patch-input.js";
export { normalizePatchPath } from "./patch-path.js";
export { PiecedBytes } from "./pieced-bytes.js";
export { type IgnoredMode, type PlanResult, planPatch } from "./plan-patch.js";
