import { ToolError } from "agent-tool-catalog";
import { anchorOf, lineHash, parseAnchor } from "./hashline.js";

/**
 * Replaces lines `start..end` (hashline anchors) with `replacement`, keeping the file's line
 * ending. Refuses a malformed or stale anchor (the line's hash changed since the read) and shows
 * the fresh anchors around it, so the model can retry without reading the whole file again.
 */
export function replaceAnchoredLines(text: string, startAnchor: string, endAnchor: string, replacement: string): string {
  // A byte-order mark is kept and is not part of line 1 (read hashes line 1 without it).
  if (text.startsWith("\ufeff")) {
    const body = replaceAnchoredLines(
      text.slice(1),
      startAnchor,
      endAnchor,
      replacement.startsWith("\ufeff") ? replacement.slice(1) : replacement,
    );
    return `\ufeff${body}`;
  }
  const pieces = text.split(/(\r\n|\n)/);
  const lines: string[] = [];
  const endings: string[] = [];
  for (let index = 0; index < pieces.length; index += 2) {
    lines.push(pieces[index] as string);
    endings.push(pieces[index + 1] ?? "");
  }
  if (lines.at(-1) === "" && endings.at(-1) === "") {
    lines.pop();
    endings.pop();
  }
  const start = checkAnchor(startAnchor, lines, "start_anchor");
  const end = checkAnchor(endAnchor, lines, "end_anchor");
  if (end < start)
    throw new ToolError("invalid_anchor", `end_anchor (line ${end + 1}) is before start_anchor (line ${start + 1}).`);
  const ending = endings.find((value) => value !== "") ?? "\n";
  const newLines = replacement === "" ? [] : replacement.replace(/\r?\n$/, "").split(/\r?\n/);
  const keptEnding = endings[end] ?? "";
  const replaced = newLines.map((line, index) => `${line}${index === newLines.length - 1 ? keptEnding : ending}`);
  const before = lines.slice(0, start).map((line, index) => `${line}${endings[index]}`);
  const after = lines.slice(end + 1).map((line, index) => `${line}${endings[end + 1 + index]}`);
  return [...before, ...replaced, ...after].join("");
}

function checkAnchor(anchor: string, lines: readonly string[], field: string): number {
  const parsed = parseAnchor(anchor);
  if (parsed === undefined) {
    throw new ToolError("invalid_anchor", `${field} ${JSON.stringify(anchor)} is not "<line>#<hash>".`, {
      hint: 'Copy an anchor such as "12#a3f0" from read.',
    });
  }
  const index = parsed.line - 1;
  const text = lines[index];
  if (text === undefined || lineHash(text) !== parsed.hash) {
    const around = lines
      .slice(Math.max(0, index - 2), Math.min(lines.length, index + 3))
      .map((line, offset) => `${anchorOf(Math.max(0, index - 2) + offset + 1, line)}|${line}`);
    throw new ToolError(
      "stale_anchor",
      `${field} ${anchor} no longer matches the file (it changed since your read). Fresh anchors near line ${parsed.line}:\n${around.join("\n")}`,
      { hint: "Use the fresh anchors, or read the file again." },
    );
  }
  return index;
}
