/**
 * Stop 48: the walks of a change read a directory's `.git` entry only where a `.git` file there
 * could refuse one of the change's paths (`gitFileLooked`, src/tools/fs/confined-file-scope.ts):
 * a path some suffix of which names git state (`d/config`). Nothing is remembered from one walk to
 * the next, so a `.git` file made in the middle of a call, after the handler's reads walked `d`
 * and before the commit walks it again, must still refuse `d/config` (its `gitdir: .` makes `d`
 * the git directory, and `d/config` its configuration). A memo of the first walk's answer, or a
 * skip of the look for such a path, lets the patch write git's configuration: this file fails.
 */
import fs, { constants, existsSync, type OpenMode, type PathLike, readFileSync, writeFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-git-mid-call-"));
  await mkdir(path.join(workspace, "d"));
  await writeFile(path.join(workspace, "d", "a.txt"), "one\n");
});
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await rm(workspace, { recursive: true, force: true });
});

const CONFIG = "[core]\n\thooksPath = /tmp/planted-hooks\n";

/** A patch changing `d/a.txt` and adding `added` (below `d`). */
function patchAdding(added: string): string {
  return [
    "*** Begin Patch",
    "*** Update File: d/a.txt",
    "-one",
    "+two",
    `*** Add File: ${added}`,
    ...CONFIG.trimEnd()
      .split("\n")
      .map((line) => `+${line}`),
    "*** End Patch",
  ].join("\n");
}

/**
 * Applies `patch`, making `d/.git` (`gitdir: .`) right before the second opening of the directory
 * `d` when `plant` (the first is the handler's reads; the second, the commit's walk under the
 * locks). Counts every opening of `d` however the walk makes it (`openSync`, or `fs.open` and
 * `fs.promises.open` when the walk's pacer turned to the thread pool).
 */
async function applyPlanting(patch: string, plant: boolean): Promise<{ result: string; opensOfD: number }> {
  const run = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace, approval: "none" },
  });
  // The run's first recovery of the workspace is not part of the call.
  expect((await run.call("ls", { path: "." })).ok).toBe(true);
  let opensOfD = 0;
  const before = (file: PathLike, flags: unknown) => {
    if (typeof flags !== "number" || (flags & constants.O_DIRECTORY) === 0 || path.basename(String(file)) !== "d") return;
    opensOfD++;
    if (plant && opensOfD === 2) writeFileSync(path.join(workspace, "d", ".git"), "gitdir: .\n");
  };
  const { openSync, open } = fs;
  const openPromise = fs.promises.open;
  vi.spyOn(fs, "openSync").mockImplementation((file, flags, mode) => {
    before(file, flags);
    return openSync(file, flags, mode);
  });
  vi.spyOn(fs, "open").mockImplementation(((file: PathLike, flags: OpenMode, ...rest: unknown[]) => {
    before(file, flags);
    return Reflect.apply(open, fs, [file, flags, ...rest]);
  }) as typeof fs.open);
  vi.spyOn(fs.promises, "open").mockImplementation((file, flags, mode) => {
    before(file, flags);
    return openPromise(file, flags, mode);
  });
  syncBuiltinESMExports();
  try {
    const result = await run.call("apply_patch", { patch });
    return { result: result.ok ? "ok" : result.error.code, opensOfD };
  } finally {
    vi.restoreAllMocks();
    syncBuiltinESMExports();
  }
}

describe("apply_patch and a .git file made in the middle of the call", () => {
  it("refuses d/config when d/.git appears between the handler's reads and the commit's walk; nothing changes", async () => {
    const { result, opensOfD } = await applyPlanting(patchAdding("d/config"), true);
    // The plant happened: `d` was opened a second time, after the reads.
    expect(opensOfD).toBeGreaterThanOrEqual(2);
    expect(existsSync(path.join(workspace, "d", ".git"))).toBe(true);
    expect(result).toBe("git_metadata_refused");
    expect(existsSync(path.join(workspace, "d", "config"))).toBe(false);
    expect(readFileSync(path.join(workspace, "d", "a.txt"), "utf8")).toBe("one\n");
  });

  it("positive control: without the .git file the same patch writes d/config (an ordinary file then)", async () => {
    const { result, opensOfD } = await applyPlanting(patchAdding("d/config"), false);
    expect(result).toBe("ok");
    expect(opensOfD).toBeGreaterThanOrEqual(2);
    expect(readFileSync(path.join(workspace, "d", "config"), "utf8")).toBe(CONFIG);
    expect(readFileSync(path.join(workspace, "d", "a.txt"), "utf8")).toBe("two\n");
  });

  it("control: with that .git file there, a patch of ordinary names applies (no .git file can refuse them)", async () => {
    await writeFile(path.join(workspace, "d", ".git"), "gitdir: .\n");
    const { result } = await applyPlanting(patchAdding("d/notes.txt"), false);
    expect(result).toBe("ok");
    expect(readFileSync(path.join(workspace, "d", "notes.txt"), "utf8")).toBe(CONFIG);
    expect(readFileSync(path.join(workspace, "d", "a.txt"), "utf8")).toBe("two\n");
  });
});
