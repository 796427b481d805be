import type { AnyToolDefinition, ToolGroup } from "agent-tool-catalog";
import { createApplyPatchTool } from "./apply-patch-tool.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { createDownloadTool } from "./download-tool.js";
import { createEditTool, createReplaceTool } from "./edit-tool.js";
import { createFileInspectTool } from "./file-inspect-tool.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { createGlobTool } from "./glob-tool.js";
import { createGrepTool } from "./grep-tool.js";
import { createLsTool } from "./ls-tool.js";
import { createReadTool } from "./read-tool.js";
import { createUndoTool } from "./undo-tool.js";
import { createWriteTool } from "./write-tool.js";

/**
 * The built-in file tools, all core tier: read, write, edit, replace, apply_patch, file_inspect,
 * download, ls, glob, grep and undo. Every one runs through the run's policy and resolves paths through its sandbox scope.
 * @public
 */
export function createFileTools(options: FileToolOptions = {}): AnyToolDefinition[] {
  checkFileToolOptions(options, "createFileTools");
  return [
    createReadTool(options),
    createWriteTool(options),
    createEditTool(options),
    createReplaceTool(options),
    createApplyPatchTool(options),
    createFileInspectTool(options),
    createDownloadTool(options),
    createLsTool(options),
    createGlobTool(options),
    createGrepTool(options),
    createUndoTool(options),
  ];
}

/**
 * The file tools as a registry group named `"fs"`.
 *
 * @public
 */
export function fileToolGroup(options: FileToolOptions = {}): ToolGroup {
  checkFileToolOptions(options, "fileToolGroup");
  return { name: "fs", tools: () => createFileTools(options) };
}
