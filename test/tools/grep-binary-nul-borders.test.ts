// The JavaScript engine works out ripgrep's NUL cutoff from the same pieces it searches (each byte
// read once): NULs at and around its 4 MiB piece borders, in ripgrep's first 3-byte read, after a
// line that grows ripgrep's buffer, at the last byte, none at all, and after a line longer than the
// engine holds (64 MiB) but past ripgrep's cutoff. Every file's lines must be rg's.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GREP_CHUNK_BYTES, GREP_MAX_LINE_BYTES } from "../../src/tools/fs/grep-file-chunks.js";
import { capability } from "../support/capabilities.js";
import { grepBothEngines } from "./support/grep-both-engines.js";

const ripgrep = capability("ripgrep");

/** About `bytes` of short lines tagged `tag`, a NEEDLE line every 50,000. */
function lines(bytes: number, tag: string): string {
  const line = `${tag} line of filler text\n`;
  const count = Math.ceil(bytes / line.length);
  return Array.from({ length: count }, (_, index) => (index % 50_000 === 0 ? `NEEDLE ${tag} ${index}\n` : line)).join("");
}

/** Lines with a NUL at byte `offset`, then more than two pieces of lines. */
function withNulAt(offset: number, tag: string): string {
  return `${lines(offset + 1_000_000, tag).slice(0, offset)}\0${lines(2 * GREP_CHUNK_BYTES, `${tag}-after`)}NEEDLE after\n`;
}

describe.skipIf(ripgrep.missing)(ripgrep.label("grep over large files with a NUL at the borders of reads"), () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-nul-borders-"));
    const files: Record<string, string> = {
      "at-border.txt": withNulAt(GREP_CHUNK_BYTES, "at"),
      "before-border.txt": withNulAt(GREP_CHUNK_BYTES - 1, "before"),
      "after-border.txt": withNulAt(GREP_CHUNK_BYTES + 1, "after"),
      "second-border.txt": withNulAt(2 * GREP_CHUNK_BYTES + 70_000, "second"),
      "first-bytes.txt": `NE\0EDLE\n${lines(GREP_CHUNK_BYTES + 10, "first")}`,
      "y-grown-buffer.txt": `${lines(GREP_CHUNK_BYTES + 5_000, "grown")}NEEDLE ${"w".repeat(300_000)}\n${lines(100_000, "tail")}\0\n${lines(GREP_CHUNK_BYTES, "gone")}`,
      "last-byte.txt": `${lines(GREP_CHUNK_BYTES + 200_000, "last")}\0`,
      "no-nul.txt": lines(GREP_CHUNK_BYTES + 123_457, "plain"),
      "z-long-line.txt": `NEEDLE before the long line\n${"z".repeat(GREP_MAX_LINE_BYTES + 1_000_000)}\0\nNEEDLE after\n`,
    };
    // rg keeps a grown buffer for the files it searches next (one searcher, --sort path): the two
    // files with long lines are named to come last.
    for (const [name, text] of Object.entries(files)) await writeFile(path.join(workspace, name), text);
  }, 120_000);
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("prints rg's lines for each of them", async () => {
    const { expected, actual, printed } = await grepBothEngines(workspace, "NEEDLE");
    // The files rg prints lines of: all but the one whose NUL is in its first read (cutoff 0).
    const printedFiles = [...new Set(expected.map((line) => line.slice(0, line.indexOf(":"))))].sort();
    expect(printedFiles, printed.slice(0, 2000)).toEqual([
      "after-border.txt",
      "at-border.txt",
      "before-border.txt",
      "last-byte.txt",
      "no-nul.txt",
      "second-border.txt",
      "y-grown-buffer.txt",
      "z-long-line.txt",
    ]);
    expect(actual).toEqual(expected);
  }, 180_000);
});
