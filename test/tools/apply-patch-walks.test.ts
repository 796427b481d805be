import fs, { constants, type OpenMode, type PathLike } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

const DIRECTORIES = 30;
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-walks-"));
  for (let index = 0; index < DIRECTORIES; index++) {
    await mkdir(path.join(workspace, `d${index}`));
    await writeFile(path.join(workspace, `d${index}`, "f.txt"), `line ${index}\n`);
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await rm(workspace, { recursive: true, force: true });
});

/** One hunk in each of the directories' files. */
const patch = Array.from(
  { length: DIRECTORIES },
  (_, index) => `--- a/d${index}/f.txt\n+++ b/d${index}/f.txt\n@@ -1 +1 @@\n-line ${index}\n+LINE ${index}\n`,
).join("");

/** How the pacing of the walks (`StepPacer`, src/tools/fs/sync-slices.ts) sees the machine. */
type Load = "as it is" | "loaded";

/**
 * Why the walks take one of two paths: a walk opens its directories with synchronous `openSync`
 * calls, timed by a `StepPacer` on the wall clock. When the opens of an 8 ms slice average over
 * 1 ms each, the pacer takes the disk for slow and the remaining opens go through the thread pool
 * (`fs.open`, several at a time). On a loaded machine (load over the 2 cores, as when `npm test`
 * runs its steps side by side) the process is preempted between opens: the wall clock runs on while
 * it waits for a core, so fast opens look slow and the walk switches paths part way, at a point
 * that varies from run to run. The count below therefore sees every directory open whichever path
 * makes it, and each case also runs with the pacer's clock made to say "loaded" (3 ms between its
 * readings), so the thread-pool path is counted on every run, not only when the machine is busy.
 */
function pacingClockOf(load: Load): void {
  if (load === "as it is") return;
  let now = performance.now();
  vi.spyOn(performance, "now").mockImplementation(() => (now += 3));
}

/** Directory opens by the path that made them. */
interface DirectoryOpens {
  readonly synchronous: number;
  readonly threadPool: number;
}

/**
 * Runs the patch counting the workspace's directories opened (`O_DIRECTORY`), through every open
 * the file tools use: `openSync` (the paced walks), `fs.open` (the walks once the pacer turns to
 * the thread pool) and `fs.promises.open` (a single directory's walk). Opens outside the workspace
 * are not walks of the patch's directories (the intent log flushing its own state directory).
 */
async function directoryOpensOf(
  approval: "none" | "destructive",
  load: Load | "slow looks",
  change: string = patch,
): Promise<DirectoryOpens> {
  const approvals = new InMemoryApprovalBroker();
  approvals.events.on("approval.requested", (request) => void approvals.approve(request.id));
  const run = createRegistry({ approvals, tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace, approval },
  });
  // Whatever the run does before the call (its first recovery of the workspace) is not counted.
  expect((await run.call("ls", { path: "." })).ok).toBe(true);
  const opens = { synchronous: 0, threadPool: 0 };
  const root = await realpath(workspace);
  // A walk opens the workspace root by its real path, every directory below through its parent's descriptor.
  const isWorkspaceDirectory = (file: PathLike, flags: unknown) =>
    typeof flags === "number" &&
    (flags & constants.O_DIRECTORY) !== 0 &&
    (String(file).startsWith("/proc/self/fd/") || !path.relative(root, String(file)).startsWith(".."));
  const { openSync, open } = fs;
  const openPromise = fs.promises.open;
  vi.spyOn(fs, "openSync").mockImplementation((file, flags, mode) => {
    if (isWorkspaceDirectory(file, flags)) opens.synchronous++;
    return openSync(file, flags, mode);
  });
  vi.spyOn(fs, "open").mockImplementation(((file: PathLike, flags: OpenMode, ...rest: unknown[]) => {
    if (isWorkspaceDirectory(file, flags)) opens.threadPool++;
    return Reflect.apply(open, fs, [file, flags, ...rest]);
  }) as typeof fs.open);
  vi.spyOn(fs.promises, "open").mockImplementation((file, flags, mode) => {
    if (isWorkspaceDirectory(file, flags)) opens.threadPool++;
    return openPromise(file, flags, mode);
  });
  syncBuiltinESMExports();
  if (load === "slow looks") slowLooksClock();
  else pacingClockOf(load);
  const result = await run.call("apply_patch", { patch: change });
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  expect(result.ok ? "ok" : result.error.message).toBe("ok");
  if (change === patch) expect(await readFile(path.join(workspace, "d7", "f.txt"), "utf8")).toBe("LINE 7\n");
  // The loaded clock must have sent the walks to the thread pool, or its case counts nothing new.
  if (load === "loaded") expect(opens.threadPool).toBeGreaterThan(0);
  return opens;
}

const total = (opens: DirectoryOpens) => opens.synchronous + opens.threadPool;

describe.each<Load>(["as it is", "loaded"])("apply_patch walks the patch's directories (machine %s)", (load) => {
  it("once under approval none: the handler's reads make the checks, the preflight does not walk first", async () => {
    const opens = total(await directoryOpensOf("none", load));
    // The root and each directory once (the commit reuses the reads' directories).
    expect(opens).toBeGreaterThanOrEqual(DIRECTORIES);
    expect(opens).toBeLessThanOrEqual(DIRECTORIES + 2);
  });

  it("control: when approval is asked, the preflight walks before it (refusals come before the question)", async () => {
    expect(total(await directoryOpensOf("destructive", load))).toBeGreaterThanOrEqual(2 * DIRECTORIES);
  });

  it("one file: its directories once per walk (the reads' and the commit's), through the single-directory walk", async () => {
    // One file takes `openVerifiedDirectory` (each step `fs.promises.open`), not the tree walk
    // the cases above count: a walk there opening each directory three times went unnoticed.
    await mkdir(path.join(workspace, ...NESTED), { recursive: true });
    await writeFile(path.join(workspace, ...NESTED, "f.txt"), "line\n");
    const opens = total(await directoryOpensOf("none", load, nestedPatch));
    expect(await readFile(path.join(workspace, ...NESTED, "f.txt"), "utf8")).toBe("LINE\n");
    // The root and each directory on the way, once by the reads' walk and once by the commit's.
    expect(opens).toBeGreaterThanOrEqual(NESTED.length + 1);
    expect(opens).toBeLessThanOrEqual(2 * (NESTED.length + 1));
  });
});

/** A file three directories below one of the workspace's. */
const NESTED = ["d0", "x", "y", "z"];
const nestedPatch = `--- a/${NESTED.join("/")}/f.txt\n+++ b/${NESTED.join("/")}/f.txt\n@@ -1 +1 @@\n-line\n+LINE\n`;

/**
 * The pacer's clock for a machine whose directory opens are fast but whose looks at git state are
 * slow: 10 us between two readings, and 20 ms more for every look at a directory's `.git` entry
 * (the walk's visitor, `gitFileTargets`, made where a path below names git state, `config`, after
 * its look at the directory's HEAD through the thread pool).
 */
function slowLooksClock(): void {
  let now = performance.now();
  vi.spyOn(performance, "now").mockImplementation(() => (now += 0.01));
  const { lstatSync } = fs;
  vi.spyOn(fs, "lstatSync").mockImplementation(((...args: Parameters<typeof lstatSync>) => {
    if (String(args[0]).endsWith("/.git")) now += 20;
    return Reflect.apply(lstatSync, fs, args);
  }) as typeof lstatSync);
  syncBuiltinESMExports();
}

/** One hunk in each directory's `config` (an ordinary file: no directory here is a git directory). */
const configPatch = Array.from(
  { length: DIRECTORIES },
  (_, index) => `--- a/d${index}/config\n+++ b/d${index}/config\n@@ -1 +1 @@\n-line ${index}\n+LINE ${index}\n`,
).join("");

describe("apply_patch's walks and the HEAD looks on their way", () => {
  beforeEach(async () => {
    for (let index = 0; index < DIRECTORIES; index++)
      await writeFile(path.join(workspace, `d${index}`, "config"), `line ${index}\n`);
  });

  it("a slow look at git state on the walk's way is not taken for slow opens: every open stays synchronous", async () => {
    // Paths naming `config` have every directory on their way looked at (a HEAD through the
    // thread pool, a `.git` entry). The walk's pacer once counted those looks as the opens' time:
    // the first slow one turned every later open of the walk into a thread-pool round trip (551
    // of the 557 opens of the 509-file bench patch).
    const opens = await directoryOpensOf("none", "slow looks", configPatch);
    expect(await readFile(path.join(workspace, "d7", "config"), "utf8")).toBe("LINE 7\n");
    expect(opens.synchronous).toBeGreaterThanOrEqual(DIRECTORIES);
    expect(opens.threadPool).toBe(0);
  });
});
