import { readFileSync, writeFileSync } from "node:fs";

const START = "<!-- bench:start -->";
const END = "<!-- bench:end -->";

/** Replaces the text between the bench markers of a Markdown file; throws when the markers are missing. */
export function replaceBenchSection(markdown: string, section: string): string {
  const start = markdown.indexOf(START);
  const end = markdown.indexOf(END);
  if (start === -1 || end === -1 || end < start) throw new Error(`The file has no ${START} ... ${END} section.`);
  return `${markdown.slice(0, start + START.length)}\n${section.trim()}\n${markdown.slice(end)}`;
}

/** Writes `section` into the README between the bench markers. */
export function updateReadme(path: string, section: string): void {
  writeFileSync(path, replaceBenchSection(readFileSync(path, "utf8"), section));
}
