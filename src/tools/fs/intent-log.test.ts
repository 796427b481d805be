import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "./confined-file-scope.js";
import { IntentLog, intentDirectory, recoverNow } from "./intent-log.js";

const roots: string[] = [];
afterEach(async () => {
  for (const root of roots.splice(0)) await rm(root, { recursive: true, force: true });
});

async function workspace(): Promise<string> {
  const root = await realpath(await mkdtemp(path.join(tmpdir(), "atc-intent-")));
  roots.push(root);
  return root;
}

describe("IntentLog: the removal of a committed log with deletes is flushed (power loss must not bring it back)", () => {
  it("knows it is committed after commit(), so finish() flushes the removal of a log that deletes files", async () => {
    const root = await workspace();
    const log = await IntentLog.prepare(root, [
      { directory: root, name: "gone.txt", created: [] },
      { directory: root, name: "kept.txt", temporary: ".atc-x.tmp", created: [] },
    ]);
    // Prepared: a crash rolls back, replaying it deletes nothing.
    expect(log.removalMustBeFlushed).toBe(false);
    await log.commit();
    const [name] = await readdir(intentDirectory(root));
    expect(JSON.parse(await readFile(path.join(intentDirectory(root), name as string), "utf8")).state).toBe("committed");
    expect(log.removalMustBeFlushed).toBe(true);
    await log.finish();
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });

  it("a committed log without deletes needs no flushed removal (its replay changes nothing)", async () => {
    const root = await workspace();
    const log = await IntentLog.prepare(root, [
      { directory: root, name: "a.txt", temporary: ".atc-a.tmp", created: [] },
      { directory: root, name: "b.txt", temporary: ".atc-b.tmp", created: [] },
    ]);
    await log.commit();
    expect(log.removalMustBeFlushed).toBe(false);
    await log.finish();
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });
});

describe("IntentLog.abandon: temporary files a failed change could not remove (their directory moved away)", () => {
  it("are removed by a recovery in this live process once their directory is back at its path, not before", async () => {
    const root = await workspace();
    const [d, y, t] = ["d", "y", "t"].map((name) => path.join(root, name)) as [string, string, string];
    await mkdir(d);
    await mkdir(y);
    const identity = async (directory: string) => {
      const stats = await stat(directory);
      return `${stats.dev}:${stats.ino}`;
    };
    const temporary = ".atc-0123456789abcdef.tmp";
    await writeFile(path.join(d, temporary), "new content");
    await writeFile(path.join(d, "f.txt"), "old");
    const log = await IntentLog.prepare(root, [
      { directory: d, name: "f.txt", temporary, created: [] },
      { directory: d, name: "g.txt", temporary: ".atc-fedcba9876543210.tmp", created: [] },
    ]);
    await log.commit();
    // The directory holding the temporary file is swapped away for another before the cleanup.
    const own = await identity(d);
    await rename(d, t);
    await rename(y, d);
    await rename(t, y);
    await log.abandon([{ directory: d, name: "f.txt", temporary, created: [], identity: own }]);
    const logs = intentDirectory(root);
    const [name] = await readdir(logs);
    const kept = JSON.parse(await readFile(path.join(logs, name as string), "utf8"));
    expect(kept).toMatchObject({ state: "prepared", abandoned: true });
    expect(kept.entries).toHaveLength(1);
    const scope = createConfinedFileScope(root);
    // Another directory at its path: nothing there is touched, the log stays.
    await writeFile(path.join(d, temporary), "a file of the same name in the other directory");
    expect(await recoverNow(scope)).toBe(0);
    expect(await readdir(logs)).toEqual([name]);
    expect(await readFile(path.join(d, temporary), "utf8")).toBe("a file of the same name in the other directory");
    expect(await readFile(path.join(y, temporary), "utf8")).toBe("new content");
    // Back at its path: the temporary file goes, the log with it, the target is left as it was.
    await rm(path.join(d, temporary));
    await rename(d, t);
    await rename(y, d);
    await rename(t, y);
    expect(await recoverNow(scope)).toBe(0);
    expect((await readdir(d)).sort()).toEqual(["f.txt"]);
    expect(await readFile(path.join(d, "f.txt"), "utf8")).toBe("old");
    expect(await readdir(logs)).toEqual([]);
  });

  it("are kept while their directory is moved away with nothing at its path, removed once it is back", async () => {
    const root = await workspace();
    const [d, away] = ["d", "away"].map((name) => path.join(root, name)) as [string, string];
    await mkdir(d);
    const temporary = ".atc-0123456789abcdef.tmp";
    await writeFile(path.join(d, temporary), "new content");
    await writeFile(path.join(d, "f.txt"), "old");
    const stats = await stat(d);
    const log = await IntentLog.prepare(root, [{ directory: d, name: "f.txt", temporary, created: [] }]);
    await rename(d, away);
    await log.abandon([{ directory: d, name: "f.txt", temporary, created: [], identity: `${stats.dev}:${stats.ino}` }]);
    const logs = intentDirectory(root);
    const [name] = await readdir(logs);
    const scope = createConfinedFileScope(root);
    // Nothing at its path: the log stays (deleting it would leave the temporary file for good).
    expect(await recoverNow(scope)).toBe(0);
    expect(await readdir(logs)).toEqual([name]);
    expect(await readFile(path.join(away, temporary), "utf8")).toBe("new content");
    // Back at its path: the temporary file goes, the log with it, the target is left as it was.
    await rename(away, d);
    expect(await recoverNow(scope)).toBe(0);
    expect((await readdir(d)).sort()).toEqual(["f.txt"]);
    expect(await readFile(path.join(d, "f.txt"), "utf8")).toBe("old");
    expect(await readdir(logs)).toEqual([]);
  });

  it("control: an ordinary crashed change's log whose directory is gone is done with by recovery", async () => {
    const root = await workspace();
    const d = path.join(root, "d");
    await mkdir(d);
    const temporary = ".atc-0123456789abcdef.tmp";
    await writeFile(path.join(d, temporary), "new content");
    await IntentLog.prepare(root, [{ directory: d, name: "f.txt", temporary, created: [] }]);
    // Left as a crashed process leaves it: not abandoned, its owner dead (no such process id).
    const logs = intentDirectory(root);
    const [name] = await readdir(logs);
    const file = path.join(logs, name as string);
    const record = JSON.parse(await readFile(file, "utf8"));
    expect(record.abandoned).toBeUndefined();
    await writeFile(file, JSON.stringify({ ...record, owner: "0:?" }));
    await rm(d, { recursive: true });
    expect(await recoverNow(createConfinedFileScope(root))).toBe(0);
    expect(await readdir(logs)).toEqual([]);
  });

  it("control: a change in flight of this live process (not abandoned) is left alone by its recovery", async () => {
    const root = await workspace();
    const temporary = ".atc-0123456789abcdef.tmp";
    await writeFile(path.join(root, temporary), "new content");
    const log = await IntentLog.prepare(root, [{ directory: root, name: "f.txt", temporary, created: [] }]);
    expect(await recoverNow(createConfinedFileScope(root))).toBe(0);
    expect(await readdir(root)).toContain(temporary);
    expect(await readdir(intentDirectory(root))).toHaveLength(1);
    await log.finish();
  });
});
