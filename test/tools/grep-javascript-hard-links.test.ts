// grep's JavaScript engine under sandbox `workspace` names a file with more than one hard link as
// refused from the walk's own lstat, without reading it: the confined read refused each such file
// anyway, at a confined open and a thrown violation per file (a directory of 20,000 links cost
// 8.6 CPU-s, now 1.7). The answer is the one the read gives: the same reason, the same files.
import { link, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "../../src/tools/fs/confined-file-scope.js";
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

describe("grep's JavaScript engine, confined: hard-linked files are refused from the walk's lstat", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-grep-hard-links-")));
    await mkdir(path.join(workspace, "tree"));
    await writeFile(path.join(workspace, "tree", "plain.txt"), "NEEDLE plain\n");
    await writeFile(path.join(workspace, "tree", "linked.txt"), "NEEDLE linked\n");
    await link(path.join(workspace, "tree", "linked.txt"), path.join(workspace, "tree", "second.txt"));
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  /** Searches `start` through the real confined scope, naming every file `read` was asked for. */
  async function search(start: string, startIsFile: boolean) {
    const scope = createConfinedFileScope(workspace);
    const read: string[] = [];
    const matcher = new LineMatcher("NEEDLE", "", 5000);
    try {
      const answer = await searchWithJavaScript({
        root: workspace,
        start,
        startIsFile,
        query: QUERY,
        matcher,
        read: (absolute) => {
          read.push(path.relative(workspace, absolute));
          return scope.read(absolute);
        },
        open: (absolute) => scope.openRead(absolute),
        signal: new AbortController().signal,
        confineTo: workspace,
      });
      const name = (absolute: string) => path.relative(workspace, absolute);
      return {
        lines: answer.lines.map((line) => `${name(line.absolute)}:${line.text}`),
        unsearched: (answer.unsearched ?? []).map((each) => `${name(each.absolute)}: ${each.reason}`),
        read,
      };
    } finally {
      await matcher.close();
    }
  }

  it("in the walk: both names of the linked file are named refused, neither is read", async () => {
    expect(await search(path.join(workspace, "tree"), false)).toEqual({
      lines: ["tree/plain.txt:NEEDLE plain"],
      unsearched: [
        "tree/linked.txt: could not be read: hard_link_refused",
        "tree/second.txt: could not be read: hard_link_refused",
      ],
      read: ["tree/plain.txt"],
    });
  });

  it("control: the confined read itself refuses the linked file with that reason (given as the path, it is read)", async () => {
    expect(await search(path.join(workspace, "tree", "linked.txt"), true)).toEqual({
      lines: [],
      unsearched: ["tree/linked.txt: could not be read: hard_link_refused"],
      read: ["tree/linked.txt"],
    });
  });
});
