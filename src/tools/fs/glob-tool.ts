import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { Minimatch } from "minimatch";
import { z } from "zod";
import { countOf } from "../../errors/count-of.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import { openDirectoryStart } from "./directory-start.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { forMinimatch, withoutLeadingDotSlash } from "./glob-pattern.js";
import { listedName } from "./listed-name.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import {
  confinementRoot,
  DEFAULT_SKIPPED_DIRECTORIES,
  type UnreadableDirectory,
  undecodableLine,
  unreadableLines,
  type WalkEntry,
  walkDirectory,
} from "./walk-directory.js";

const globInput = z.object({
  pattern: z.string().min(1).max(1000).describe('Glob pattern, e.g. "src/**/*.ts" or "*.{md,txt}"'),
  path: z.string().optional().describe("Directory to search from (default: the workspace root)"),
  max_results: z.number().int().min(1).max(10_000).optional().describe("Most paths to return (default 500)"),
  include_ignored: z.boolean().optional().describe("Also search .git and node_modules (default false)"),
});

/**
 * `glob`: file paths matching a minimatch pattern, in name order, bounded.
 *
 * @public
 */
export function createGlobTool(options: FileToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createGlobTool");
  return defineTool({
    name: "glob",
    description:
      'Find files whose paths match a glob pattern. Patterns such as "*.go" or "src/**/*.ts" (minimatch: "**", "*", "{a,b}", "[abc]"); it matches names, grep searches contents. Skips .git and node_modules unless include_ignored.',
    inputSchema: globInput,
    annotations: { title: "Find files", readOnlyHint: true },
    tags: ["builtin", "file", "files", "find", "glob", "pattern", "match", "name", "search"],
    handler: async (input, context) => {
      const scope = resolveFileScope(context, options);
      const requested = input.path ?? ".";
      const start = await scope.resolve(requested, "read");
      const opened = await openDirectoryStart(scope, start, requested === "" ? "." : requested);
      try {
        const { matcher, matchBase } = globMatcher(input.pattern);
        // A pattern without "/" (and not anchored) matches base names anywhere, as most users expect of "*.ts".
        const limit = input.max_results ?? 500;
        const prefix = scope.display(start);
        const found: string[] = [];
        let more = false;
        const skip = input.include_ignored === true ? new Set<string>() : DEFAULT_SKIPPED_DIRECTORIES;
        const confineTo = await confinementRoot(context, scope.root);
        const unreadable: UnreadableDirectory[] = [];
        const unreachable: string[] = [];
        const matches = (relative: string) => matcher.match(matchBase ? (relative.split("/").at(-1) ?? relative) : relative);
        const onUnreadable = (relative: string, code: string) => unreadable.push({ relative, code });
        for await (const entry of walkDirectory(opened.walkFrom, {
          skipDirectories: skip,
          signal: context.signal,
          onUnreadable,
          ...confineTo,
        })) {
          if (!listable(entry, matches, (line) => unreachable.push(line), prefix)) continue;
          if (found.length >= limit) {
            more = true;
            break;
          }
          // Named from the workspace, as read and edit take them (and as rg --files DIR prints): named
          // from the directory searched, "a.ts" of path "src" was file_not_found when read.
          found.push(listedName(fromWorkspace(prefix, entry.relative)));
        }
        // A directory that could not be read is named: "No files match" must not stand for its files.
        const notes = [
          ...unreachable,
          ...unreadableLines(unreadable, (relative) => (relative === "" ? scope.display(start) : relative)),
        ];
        return globAnswer(input.pattern, scope.display(start), found, more ? limit : undefined, notes);
      } finally {
        await opened.close();
      }
    },
  });
}

/**
 * Whether a walk's entry is a match to list. One whose name is not valid UTF-8 is never listed
 * by a name (see `undecodableLine`): a note is added for it when it matches, and always for such a
 * directory (its entries were not walked).
 */
function listable(
  entry: WalkEntry,
  matches: (relative: string) => boolean,
  note: (line: string) => void,
  prefix: string,
): boolean {
  if (entry.undecodable === true) {
    if (entry.kind === "directory" || matches(entry.relative))
      note(undecodableLine(fromWorkspace(prefix, entry.relative), entry.kind));
    return false;
  }
  return entry.kind !== "directory" && matches(entry.relative);
}

/** The pattern's matcher; `matchBase`: it is matched against base names. */
function globMatcher(input: string): { readonly matcher: Minimatch; readonly matchBase: boolean } {
  // A leading `./` anchors the pattern to the start (`./*.ts`: the top level's only).
  const { pattern, matchBase } = forMinimatch(withoutLeadingDotSlash(input));
  try {
    return { matcher: new Minimatch(pattern, { dot: true, nocomment: true }), matchBase };
  } catch (error) {
    throw new ToolError("invalid_pattern", `Invalid glob pattern: ${(error as Error).message}`);
  }
}

/**
 * The answer: a header naming the pattern and the directory searched, quoted ("under ." before the
 * full stop read "under .."), then the files, then what could not be read. `cutAt`: the limit
 * the list stopped at, when it did.
 */
function globAnswer(
  pattern: string,
  where: string,
  found: readonly string[],
  cutAt: number | undefined,
  notes: readonly string[],
): string {
  if (found.length === 0)
    return [`No files match ${JSON.stringify(pattern)} under ${JSON.stringify(where)}.`, ...notes].join("\n");
  const cut = cutAt === undefined ? "" : ` (first ${cutAt}; narrow the pattern or raise max_results)`;
  return [
    `${countOf(found.length, "file")} ${found.length === 1 ? "matches" : "match"} ${JSON.stringify(pattern)} under ${JSON.stringify(where)}${cut}`,
    ...found,
    ...notes,
  ].join("\n");
}

/** A path found under the directory the workspace names `directory`, named from the workspace. */
function fromWorkspace(directory: string, relative: string): string {
  return directory === "." ? relative : `${directory}/${relative}`;
}
