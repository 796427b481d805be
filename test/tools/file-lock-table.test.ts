/**
 * The in-process lock table is shared by every build of this package loaded in one process (ESM
 * and CJS, or two versions), under a registered symbol: a caller of another build waits on the
 * promise it finds under a key. A batch of keys none of which is held is entered in one step; one
 * that meets a held key waits for it. Both must keep the table's contract with the other build.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { withFileLocks } from "../../src/tools/fs/cross-process-lock.js";

interface LockTable {
  tails: Map<string, Promise<unknown>>;
}
const table = (globalThis as unknown as Record<symbol, LockTable>)[Symbol.for("agent-tool-catalog.file-locks.v1")] as LockTable;

let lockDir: string;
const previous = process.env.AGENT_TOOL_CATALOG_LOCK_DIR;
beforeEach(async () => {
  lockDir = await mkdtemp(path.join(tmpdir(), "atc-lock-table-"));
  process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
});
afterEach(async () => {
  if (previous === undefined) delete process.env.AGENT_TOOL_CATALOG_LOCK_DIR;
  else process.env.AGENT_TOOL_CATALOG_LOCK_DIR = previous;
  await rm(lockDir, { recursive: true, force: true });
});

/** Lets queued callbacks and timers of this turn run (a few turns of the event loop). */
const turns = async (count: number) => {
  for (let index = 0; index < count; index++) await new Promise((resolve) => setImmediate(resolve));
};

/** What another build's caller does to take `key`: wait for the promise under it, then hold it. */
function otherBuildTakes(key: string): { entered: () => boolean; release: () => void } {
  const before = table.tails.get(key) ?? Promise.resolve();
  let entered = false;
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = before.then(
    () => done,
    () => done,
  );
  table.tails.set(key, tail);
  void before.then(
    () => {
      entered = true;
    },
    () => {
      entered = true;
    },
  );
  return {
    entered: () => entered,
    release: () => {
      release();
      if (table.tails.get(key) === tail) table.tails.delete(key);
    },
  };
}

const keysOf = (label: string) => ["a", "b", "c"].map((name) => `test-lock-table:${label}:${name}:${process.pid}`);

describe("the in-process lock table shared with other builds", () => {
  it("a batch of free keys holds every one of them: another build's caller waits until the batch ends", async () => {
    const keys = keysOf("free");
    const others: ReturnType<typeof otherBuildTakes>[] = [];
    await withFileLocks(keys, async () => {
      for (const key of keys) others.push(otherBuildTakes(key));
      await turns(5);
      expect(others.map((other) => other.entered())).toEqual([false, false, false]);
    });
    await turns(2);
    expect(others.map((other) => other.entered())).toEqual([true, true, true]);
    for (const other of others) other.release();
    expect(keys.filter((key) => table.tails.has(key))).toEqual([]);
  });

  it("a batch meeting a key another build holds waits for it; control: it runs once that key is released", async () => {
    const keys = keysOf("held");
    const other = otherBuildTakes(keys[1] as string);
    await turns(1);
    expect(other.entered()).toBe(true);
    let ran = false;
    const batch = withFileLocks(keys, async () => {
      ran = true;
    });
    // Two batches of free keys, started after it, take their locks and end one after the other
    // (the same directory check and lock files): one not made to wait would have run by then.
    for (const label of ["control-1", "control-2"]) {
      let controlRan = false;
      await withFileLocks(keysOf(label), async () => {
        controlRan = true;
      });
      expect(controlRan).toBe(true);
    }
    expect(ran).toBe(false);
    other.release();
    await batch;
    expect(ran).toBe(true);
    expect(keys.filter((key) => table.tails.has(key))).toEqual([]);
  });
});
