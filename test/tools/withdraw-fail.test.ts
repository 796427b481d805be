/**
 * Review of stop 35 (the last look after the intent log's commit): where the look refuses a change
 * of several files (a directory moved, a target changed by a writer that takes no lock) and the log
 * cannot be taken back (`IntentLog.withdraw` refused: a full disk), the change went on and the call
 * said ok: the renames landed in the moved directory, or over the other writer's change, and the
 * result claimed a state the paths did not have. Now the log is removed instead (a removal needs no
 * space) and the change is rolled back, nothing changed, as when the withdrawal is written (the
 * control; apply_patch then plans again on the file as it is, the append kept). Where the log can be neither rewritten nor removed, the change is made (as a crash
 * would have it rolled forward) and the call fails with `partially_applied`, naming what the look
 * found. The failures of the log's file system are simulated (a spy on `IntentLog.withdraw` and
 * `IntentLog.drop`); the moves and writes are real.
 */
import { appendFile, mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createConfinedFileScope } from "../../src/tools/fs/confined-file-scope.js";
import { DirectoryReplacedError } from "../../src/tools/fs/directory-replaced-error.js";
import { AppliedDespiteLookError, applyFileChanges } from "../../src/tools/fs/file-transaction.js";
import { IntentLog, intentDirectory } from "../../src/tools/fs/intent-log.js";
import { createFileTools } from "../../src/tools/index.js";

let ws: string;
beforeEach(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "atc-withdraw-fail-")));
  await mkdir(path.join(ws, "d"));
  await writeFile(path.join(ws, "d/a.txt"), "old a\n");
  await writeFile(path.join(ws, "d/b.txt"), "old b\n");
});
afterEach(async () => {
  vi.restoreAllMocks();
  await rm(ws, { recursive: true, force: true });
});

const full = () => Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" });
const readOnly = () => Object.assign(new Error("EROFS: read-only file system"), { code: "EROFS" });

/** Runs `after` right after the log's commit (the last look follows it). */
function afterCommit(after: () => Promise<void>): void {
  const commit = IntentLog.prototype.commit;
  let done = false;
  vi.spyOn(IntentLog.prototype, "commit").mockImplementation(async function (this: IntentLog) {
    await commit.call(this);
    if (done) return;
    done = true;
    await after();
  });
}

/** Temporary files left anywhere in the workspace, and logs left. */
async function leftBehind(): Promise<string[]> {
  const entries = await readdir(ws, { recursive: true });
  const logs = await readdir(intentDirectory(ws)).catch(() => []);
  return [...entries.filter((name) => path.basename(name).startsWith(".atc-")), ...logs];
}

describe("a directory moved after the commit point", () => {
  const change = () =>
    applyFileChanges(createConfinedFileScope(ws), [
      { path: "d/a.txt", after: "new a\n" },
      { path: "d/b.txt", after: "new b\n" },
    ]);
  beforeEach(() => afterCommit(() => rename(path.join(ws, "d"), path.join(ws, "moved"))));

  it("control: the withdrawal written, refused and nothing changed", async () => {
    await expect(change()).rejects.toMatchObject({ cause: expect.any(DirectoryReplacedError) });
    expect(await readFile(path.join(ws, "moved/a.txt"), "utf8")).toBe("old a\n");
    expect(await readFile(path.join(ws, "moved/b.txt"), "utf8")).toBe("old b\n");
    expect(await leftBehind()).toEqual([]);
  });

  it("the withdrawal refused (full disk): the log removed instead, refused and nothing changed", async () => {
    const withdraw = vi.spyOn(IntentLog.prototype, "withdraw").mockRejectedValue(full());
    await expect(change()).rejects.toMatchObject({ cause: expect.any(DirectoryReplacedError) });
    expect(withdraw).toHaveBeenCalledOnce();
    expect(await readFile(path.join(ws, "moved/a.txt"), "utf8")).toBe("old a\n");
    expect(await readFile(path.join(ws, "moved/b.txt"), "utf8")).toBe("old b\n");
    expect(await leftBehind()).toEqual([]);
  });

  it("the log removed but its directory flush failed (EIO): taken back all the same, nothing changed (review c)", async () => {
    vi.spyOn(IntentLog.prototype, "withdraw").mockRejectedValue(full());
    const drop = IntentLog.prototype.drop;
    vi.spyOn(IntentLog.prototype, "drop").mockImplementation(async function (this: IntentLog) {
      // The removal made (the real drop), then the flush reported failing.
      await drop.call(this);
      throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
    });
    await expect(change()).rejects.toMatchObject({ cause: expect.any(DirectoryReplacedError) });
    expect(await readFile(path.join(ws, "moved/a.txt"), "utf8")).toBe("old a\n");
    expect(await readFile(path.join(ws, "moved/b.txt"), "utf8")).toBe("old b\n");
    expect(await leftBehind()).toEqual([]);
  });

  it("the log neither rewritten nor removed: made, and the error says where its files went", async () => {
    vi.spyOn(IntentLog.prototype, "withdraw").mockRejectedValue(readOnly());
    vi.spyOn(IntentLog.prototype, "drop").mockRejectedValue(readOnly());
    const error = await change().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(AppliedDespiteLookError);
    expect((error as AppliedDespiteLookError).movedDirectories).toEqual(["d"]);
    expect((error as Error).message).toMatch(/written into the directories held for "d", which had been moved or replaced/);
    // Rolled forward through the held directory, as a crash would have it: the files are in the moved one.
    expect(await readFile(path.join(ws, "moved/a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(ws, "moved/b.txt"), "utf8")).toBe("new b\n");
    vi.restoreAllMocks();
    expect(await leftBehind()).toEqual([]);
  });
});

describe("apply_patch: a file appended to by a writer that takes no lock, after the commit point", () => {
  const patch =
    "*** Begin Patch\n*** Update File: d/a.txt\n@@\n-old a\n+new a\n*** Update File: d/b.txt\n@@\n-old b\n+new b\n*** End Patch\n";
  const call = () =>
    createRegistry({ tools: createFileTools() })
      .createRun({ profile: "full", permissions: { sandbox: "workspace", workspace: ws } })
      .call("apply_patch", { patch });
  beforeEach(() => afterCommit(() => appendFile(path.join(ws, "d/b.txt"), "appended\n")));

  it("control: the withdrawal written, the patch planned again on the append, which is kept", async () => {
    const result = await call();
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(ws, "d/a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(ws, "d/b.txt"), "utf8")).toBe("new b\nappended\n");
    expect(await leftBehind()).toEqual([]);
  });

  it("the withdrawal refused (full disk): the log removed instead, the patch planned again, the append kept", async () => {
    vi.spyOn(IntentLog.prototype, "withdraw").mockRejectedValue(full());
    const result = await call();
    expect(result.ok).toBe(true);
    expect(await readFile(path.join(ws, "d/a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(ws, "d/b.txt"), "utf8")).toBe("new b\nappended\n");
    expect(await leftBehind()).toEqual([]);
  });

  it("the log neither rewritten nor removed: partially_applied, naming the file whose change was overwritten", async () => {
    vi.spyOn(IntentLog.prototype, "withdraw").mockRejectedValue(readOnly());
    vi.spyOn(IntentLog.prototype, "drop").mockRejectedValue(readOnly());
    const result = await call();
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe("partially_applied");
    expect(result.error.message).toMatch(/"d\/b\.txt" changed after the check, and that change was overwritten/);
    expect(result.error.message).toMatch(/d\/a\.txt: changed .*d\/b\.txt: changed/);
    expect(await readFile(path.join(ws, "d/a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(ws, "d/b.txt"), "utf8")).toBe("new b\n");
    vi.restoreAllMocks();
    expect(await leftBehind()).toEqual([]);
  });
});
