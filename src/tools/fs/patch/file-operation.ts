import type { TextEdit } from "./patch-input.js";

/** The role of one line of a hunk. */
export type HunkLineKind = "context" | "remove" | "add";

/** One line of a hunk, without its prefix. */
export interface HunkLine {
  /** Whether the line is kept, removed or added. */
  readonly kind: HunkLineKind;
  /** The line's text. */
  readonly text: string;
}

/**
 * One hunk, in the form both patch formats parse into: the old side (context and removed lines)
 * is located in the file, then replaced by the new side (context and added lines).
 */
export interface Hunk {
  /** The lines in patch order. */
  readonly lines: readonly HunkLine[];
  /** 1-based line in the patch text where the hunk starts (its `@@` line when it has one). */
  readonly patchLine: number;
  /** Codex `@@ text`: a line to find first; the hunk is searched from there. */
  readonly context?: string;
  /** Codex `*** End of File`: the old side must end where the file ends. */
  readonly endOfFile: boolean;
  /** Unified diff: the 1-based old start line from the `@@ -l,s +l,s @@` header. */
  readonly oldStart?: number;
  /** Unified diff: `\ No newline at end of file` after the old side's last line. */
  readonly oldNoNewline: boolean;
  /** Unified diff: `\ No newline at end of file` after the new side's last line. */
  readonly newNoNewline: boolean;
}

/** How hunks are located: Codex (search from a cursor, `@@` context) or unified (stated line, then nearby). */
export type HunkStyle = "codex" | "unified";

/**
 * One step of a plan, in patch order. Each step sees the files as the previous steps left them,
 * so a patch may add a file and then update it, or delete a file and add it again.
 */
export type FileOperation =
  | {
      readonly type: "add";
      readonly path: string;
      readonly content: string;
      readonly patchLine: number;
    }
  | {
      readonly type: "delete";
      readonly path: string;
      readonly patchLine: number;
      /** Unified diff: the hunks removing the content, checked against the file. */
      readonly hunks?: readonly Hunk[];
    }
  | {
      readonly type: "update";
      readonly path: string;
      readonly moveTo?: string;
      readonly hunks: readonly Hunk[];
      readonly style: HunkStyle;
      readonly patchLine: number;
    }
  | {
      /**
       * A git mode change (`new mode 100755`, `new file mode 100755`) of a file that exists at this
       * step: not applied (file modes are left as they are, a new file gets the default), reported.
       */
      readonly type: "mode";
      readonly path: string;
      /** The mode the patch asks for, as git spells it (`100755`, `100644`). */
      readonly mode: string;
      readonly patchLine: number;
    }
  | {
      readonly type: "edit";
      readonly path: string;
      readonly edits: readonly TextEdit[];
    };

/** The old side of a hunk: its context and removed lines. */
export function oldSide(lines: readonly HunkLine[]): string[] {
  // One pass, one array (every hunk of a patch goes through here at least once).
  const texts: string[] = [];
  for (const line of lines) if (line.kind !== "add") texts.push(line.text);
  return texts;
}

/** Splits patch text into lines, with a `\r` before each `\n` dropped and no empty line after a final newline. */
export function splitPatchLines(text: string): string[] {
  const lines = text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (lines.length > 0 && lines.at(-1) === "") lines.pop();
  return lines;
}
