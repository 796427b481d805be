import { mkdtemp, readdir, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { IntentLog, intentDirectory } from "./intent-log.js";

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
