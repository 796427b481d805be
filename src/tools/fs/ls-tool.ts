import { lstat } from "node:fs/promises";
import { type AnyToolDefinition, defineTool } from "agent-tool-catalog";
import { z } from "zod";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { openDirectoryStart } from "./directory-start.js";
import { toFileToolError } from "./file-errors.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { listedName } from "./listed-name.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import {
  confinementRoot,
  type UnreadableDirectory,
  undecodableLine,
  unreadableLines,
  type WalkEntry,
  walkDirectory,
} from "./walk-directory.js";

const lsInput = z.object({
  path: z.string().optional().describe("Default: workspace root"),
  depth: z.number().int().min(1).max(10).optional().describe("Levels (default 1)"),
  all: z.boolean().optional().describe("Include dot files"),
  max_entries: z.number().int().min(1).max(5000).optional().describe("Default 500"),
});

/**
 * `ls`: a directory's entries with their kind and size, bounded, symlinks shown as links.
 *
 * @public
 */
export function createLsTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createLsTool");
  return defineTool({
    name: "ls",
    description: "List a directory: names (dir/, link@) with sizes.",
    inputSchema: lsInput,
    annotations: { title: "List directory", readOnlyHint: true },
    tags: ["builtin", "file", "directory", "list", "ls", "tree"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const requested = input.path ?? ".";
      const start = await scope.resolve(requested, "read");
      const opened = await openDirectoryStart(scope, start, requested);
      try {
        const limit = input.max_entries ?? 500;
        const lines: string[] = [];
        let more = false;
        const confineTo = await confinementRoot(context, scope.root);
        const unreadable: UnreadableDirectory[] = [];
        const onUnreadable = (relative: string, code: string) => {
          // The directory asked for: there is no listing to give (it said "0 entries").
          if (relative === "") throw toFileToolError(Object.assign(new Error(code), { code }), requested);
          unreadable.push({ relative, code });
        };
        for await (const entry of walkDirectory(opened.walkFrom, {
          maxDepth: input.depth ?? 1,
          signal: context.signal,
          onUnreadable,
          ...confineTo,
        })) {
          const hidden = entry.relative.split("/").some((part) => part.startsWith("."));
          if (hidden && input.all !== true) continue;
          if (lines.length >= limit) {
            more = true;
            break;
          }
          lines.push(await listingLine(entry, confineTo.confineTo !== undefined));
        }
        const header = `${scope.display(start)}: ${lines.length} entr${lines.length === 1 ? "y" : "ies"}${more ? ` (first ${limit}; raise max_entries or list a subdirectory)` : ""}`;
        return [header, ...lines, ...unreadableLines(unreadable, (relative) => relative)].join("\n");
      } finally {
        await opened.close();
      }
    },
  });
}

/** One `ls` line: indented name, `/` for directories, `@` for links, size for files. */
async function listingLine(entry: WalkEntry, confined: boolean): Promise<string> {
  const indent = "  ".repeat(entry.depth - 1);
  const base = entry.relative.split("/").at(-1) ?? entry.relative;
  if (entry.undecodable === true) return `${indent}${undecodableLine(base, entry.kind)}`;
  const name = listedName(base, "ls");
  if (entry.kind === "directory") return `${indent}${name}/`;
  if (entry.kind === "symlink") return `${indent}${name}@`;
  const size = entry.size ?? (confined ? undefined : (await lstat(entry.absolute).catch(() => undefined))?.size);
  return `${indent}${name}${size === undefined ? "" : `  ${size}`}`;
}
