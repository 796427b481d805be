import type { ToolDefinition } from "agent-tool-catalog";
import { defineTool } from "../tool/define-tool.js";
import { integerField, type OutputOf, objectSchema, optional, required, stringField } from "../tool/object-schema.js";
import type { GitToolRuntime } from "./git-tool-runtime.js";
import { loadBlame } from "./load-git-handlers.js";

const blameInput = objectSchema({
  path: required(stringField({ min: 1 }), "The file to blame, relative to the workspace"),
  ref: optional(stringField({ min: 1 }), "The version to blame (default HEAD)"),
  line: optional(integerField({ min: 1 }), "One line to blame (with context lines around it)"),
  start_line: optional(integerField({ min: 1 }), "First line of a range to blame (instead of line)"),
  end_line: optional(integerField({ min: 1 }), "Last line of the range (default start_line)"),
  context: optional(integerField({ min: 0, max: 50 }), "Lines blamed around the range too (default 3)"),
});

/** The input of the tool, as its schema parses it. */
export type BlameInput = OutputOf<typeof blameInput>;

/**
 * One blamed line.
 *
 * @public
 */
export interface BlameLine {
  /** The line number in the blamed version. */
  readonly line: number;
  /** The commit that last changed the line (a key of `commits`). */
  readonly sha: string;
  /** Its author. */
  readonly author: string;
  /** Its author date, `YYYY-MM-DD`. */
  readonly date: string;
  /** The line's text (long lines are cut, ending in "…"). */
  readonly text: string;
  /** Present on context lines around the asked range. */
  readonly context?: true;
}

/**
 * A commit that lines are blamed on.
 *
 * @public
 */
export interface BlameCommit {
  /** The author's name. */
  readonly author: string;
  /** The author's e-mail. */
  readonly email: string;
  /** The author date, ISO 8601. */
  readonly date: string;
  /** The first line of the message. */
  readonly subject: string;
  /** The file's path in that commit, when it was renamed since. */
  readonly path?: string;
}

/**
 * The answer of `git_blame_context`.
 *
 * @public
 */
export interface BlameOutput {
  /** The repository-relative path. */
  readonly path: string;
  /** The blamed version. */
  readonly ref: string;
  /** Lines in the file at that version. */
  readonly total_lines: number;
  /** The asked range (after clamping to the file). */
  readonly range: { readonly start: number; readonly end: number };
  /** Blamed lines, in order: the range and its context. */
  readonly lines: readonly BlameLine[];
  /** The commits lines are blamed on, by `sha`. */
  readonly commits: Readonly<Record<string, BlameCommit>>;
  /** True when lines were left out (range over the line limit or the byte budget). */
  readonly truncated: boolean;
  /** What was left out. */
  readonly omitted?: string;
}

/** `git_blame_context`: who last changed each line of a range, with the commits' subjects and context lines. */
export function createBlameTool(runtime: GitToolRuntime): ToolDefinition<BlameInput, BlameOutput> {
  return defineTool({
    name: "git_blame_context",
    description:
      "Blame a range of lines (like git blame -L): for each line the commit that last changed it, its author and date, " +
      "plus context lines around the range and each commit's subject. Follows renames.",
    tier: "deferred",
    mutating: false,
    inputSchema: blameInput,
    annotations: { title: "Blame lines", readOnlyHint: true, idempotentHint: true },
    tags: ["git", "history", "blame", "annotate", "author", "lines", "who"],
    handler: async (input, context) => (await loadBlame()).runBlame(runtime, input, context),
  });
}
