// grep's JavaScript engine reads a large file it finds in a directory once. Before, it read the
// file to ripgrep's NUL cutoff first (to the end when it has no NUL) and then again to search it:
// twice the bytes. The lines it prints are checked against rg in grep-binary-nul.test.ts.
import type { FileHandle } from "node:fs/promises";
import { mkdtemp, open, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GREP_CHUNK_BYTES } from "../../src/tools/fs/grep-file-chunks.js";
import { searchWithJavaScript } from "../../src/tools/fs/grep-javascript.js";
import type { GrepQuery } from "../../src/tools/fs/grep-ripgrep.js";
import { LineMatcher } from "../../src/tools/fs/grep-worker.js";

const QUERY: GrepQuery = {
  pattern: "NEEDLE",
  ignoreCase: false,
  fixedStrings: false,
  glob: undefined,
  context: 0,
  limit: 1000,
  filesOnly: false,
};
const FILLER = "filler line without the word\n".repeat(400_000);

/** Searches `start` with real files and a real matcher, counting the bytes read through opened handles. */
async function search(root: string, start: string, startIsFile: boolean) {
  let bytesRead = 0;
  let opened = 0;
  const matcher = new LineMatcher("NEEDLE", "", 5000);
  try {
    const answer = await searchWithJavaScript({
      root,
      start,
      startIsFile,
      query: QUERY,
      matcher,
      read: (absolute) => readFile(absolute),
      open: async (absolute) => {
        opened++;
        const handle = await open(absolute, "r");
        const read = handle.read.bind(handle) as (...args: unknown[]) => Promise<{ bytesRead: number }>;
        (handle as { read: unknown }).read = async (...args: unknown[]) => {
          const result = await read(...args);
          bytesRead += result.bytesRead;
          return result;
        };
        return handle as FileHandle;
      },
      signal: new AbortController().signal,
    });
    return { lines: answer.lines.map((line) => `${path.basename(line.absolute)}:${line.number}`), bytesRead, opened };
  } finally {
    await matcher.close();
  }
}

describe("grep's JavaScript engine reads a large file once", () => {
  let workspace: string;
  const sizes: Record<string, number> = {};
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-reads-"));
    const files = {
      // 23 MB without a NUL: searched whole.
      "plain.txt": `NEEDLE first\n${FILLER}NEEDLE middle\n${FILLER}NEEDLE last\n`,
      // A NUL at 11.6 MB of 23 MB: searched to ripgrep's cutoff before it.
      "late-nul.txt": `NEEDLE first\n${FILLER}\0 a nul byte\n${FILLER}NEEDLE after nul\n`,
    };
    for (const [name, text] of Object.entries(files)) {
      await writeFile(path.join(workspace, name), text);
      sizes[name] = Buffer.byteLength(text);
    }
    expect(Math.min(...Object.values(sizes))).toBeGreaterThan(GREP_CHUNK_BYTES);
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("found in a directory, a file without a NUL is read once, to its end", async () => {
    const { lines, bytesRead, opened } = await search(workspace, workspace, false);
    expect(lines).toEqual(["late-nul.txt:1", "plain.txt:1", "plain.txt:400002", "plain.txt:800003"]);
    expect(opened).toBe(2);
    // Both files: the plain one whole, the other up to the read holding its NUL (a piece of 4 MiB at most).
    const nulAt = FILLER.length + "NEEDLE first\n".length;
    expect(bytesRead).toBeGreaterThanOrEqual((sizes["plain.txt"] as number) + nulAt);
    expect(bytesRead).toBeLessThanOrEqual((sizes["plain.txt"] as number) + nulAt + GREP_CHUNK_BYTES);
  }, 120_000);

  it("named, a file is read once too (control: that path never read twice)", async () => {
    const file = path.join(workspace, "plain.txt");
    const { lines, bytesRead } = await search(workspace, file, true);
    expect(lines).toEqual(["plain.txt:1", "plain.txt:400002", "plain.txt:800003"]);
    expect(bytesRead).toBe(sizes["plain.txt"]);
  }, 120_000);
});
