import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { grepBothEngines } from "./support/grep-both-engines.js";

const ripgrep = capability("ripgrep");

// ripgrep stops at the first NUL byte of a file it finds in a directory, keeping only the lines of
// the buffer fills before the one holding it: the JavaScript engine must give the same lines.
describe.skipIf(ripgrep.missing)(ripgrep.label("grep over files with a NUL byte past their start"), () => {
  let workspace: string;
  const filler = "filler line without the word\n".repeat(400_000);
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-nul-"));
    // NUL at 20 KB of 2 MB: in ripgrep's first fills, so nothing is printed, not even line 1.
    await writeFile(
      path.join(workspace, "early.txt"),
      `NEEDLE first\n${"x\n".repeat(10_000)}\0\n${"y\n".repeat(1_000_000)}NEEDLE after nul\n`,
    );
    // NUL at 11.6 MB of 23 MB (searched in pieces): the lines before it, none after.
    await writeFile(path.join(workspace, "late.txt"), `NEEDLE first\n${filler}\0 a nul byte\n${filler}NEEDLE after nul\n`);
    // NUL at 300 KB of 600 KB (read whole): the matches of the fills before it.
    const lines = Array.from({ length: 20_000 }, (_, index) =>
      index % 997 === 0 ? `NEEDLE ${index}\n` : `line ${index} of text\n`,
    );
    await writeFile(path.join(workspace, "middle.txt"), `${lines.join("")}\0${lines.join("")}`);
    await writeFile(path.join(workspace, "text.txt"), "NEEDLE in a text file\n");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("prints rg's lines for each file, whatever its size and wherever the NUL is", async () => {
    const { expected, actual, printed } = await grepBothEngines(workspace, "NEEDLE");
    expect(
      expected.some((line) => line.startsWith("late.txt:1:")),
      printed,
    ).toBe(true);
    expect(actual).toEqual(expected);
  }, 120_000);
});
