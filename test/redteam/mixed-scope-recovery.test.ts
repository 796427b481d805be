// Red team round 12: a change log written by an `unrestricted` run names files inside and outside
// the workspace. When that writer died, the next file tool of a `workspace` run in the same
// workspace replayed the log: it could not reach the entries outside (the confinement refuses
// them), skipped them, and deleted the log, so no later recovery, unrestricted included, could
// ever complete them (a committed change stayed half applied outside, its temporary files with
// it). A recovery now completes what it reaches and keeps the rest logged.
import { readdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import {
  fileToolsRun,
  makeRecoveryFixture,
  plantDeadWritersLog as plantLog,
  type RecoveryFixture,
  readOrAbsent as read,
  removeRecoveryFixture,
} from "./support/dead-writer-log.js";

let fixture: RecoveryFixture;
let root: string;
let outside: string;
beforeEach(async () => {
  fixture = await makeRecoveryFixture("atc-mixed-scope-");
  ({ root, outside } = fixture);
});
afterEach(() => removeRecoveryFixture(fixture));

/** Any file tool's first use of the workspace in a scope recovers it: an `ls`. */
async function openIn(sandbox: "workspace" | "unrestricted"): Promise<void> {
  const listed = await fileToolsRun(root, sandbox).call("ls", { path: "." });
  expect(listed.ok).toBe(true);
}

/**
 * What an unrestricted writer killed after its log said `state` leaves: `a.txt` in the workspace
 * and `b.txt` outside, each with its temporary file, and `c.txt` outside to delete.
 */
async function plantDeadWritersLog(state: "committed" | "prepared"): Promise<string> {
  for (const [directory, name] of [
    [root, "a"],
    [outside, "b"],
  ] as const) {
    await writeFile(path.join(directory, `${name}.txt`), `old ${name}\n`);
    await writeFile(path.join(directory, `.atc-${name}.tmp`), `new ${name}\n`);
  }
  await writeFile(path.join(outside, "c.txt"), "old c\n");
  return plantLog(root, state, [
    { directory: root, name: "a.txt", temporary: ".atc-a.tmp", created: [] },
    { directory: outside, name: "b.txt", temporary: ".atc-b.tmp", created: [] },
    { directory: outside, name: "c.txt", created: [] },
  ]);
}

describe("crash recovery of an unrestricted run's change log from a workspace run", () => {
  it("committed: the workspace recovery completes the file inside and keeps the log of the outside ones; unrestricted completes them", async () => {
    const log = await plantDeadWritersLog("committed");
    await openIn("workspace");
    expect(await read(path.join(root, "a.txt"))).toBe("new a\n");
    expect(await readdir(root)).toEqual(["a.txt"]);
    // Outside: untouched, and still logged (only the entries the workspace recovery could not reach).
    expect(await read(path.join(outside, "b.txt"))).toBe("old b\n");
    expect(await read(path.join(outside, "c.txt"))).toBe("old c\n");
    const kept = JSON.parse(await readFile(log, "utf8")) as { state: string; entries: { name: string }[] };
    expect(kept.state).toBe("committed");
    expect(kept.entries.map((entry) => entry.name)).toEqual(["b.txt", "c.txt"]);
    // Positive control: a recovery with the scope to reach them completes them and removes the log.
    await openIn("unrestricted");
    expect(await read(path.join(outside, "b.txt"))).toBe("new b\n");
    expect(await read(path.join(outside, "c.txt"))).toBe("absent");
    expect((await readdir(outside)).sort()).toEqual(["b.txt"]);
    expect(await readdir(intentDirectory(root))).toEqual([]);
    expect(await read(path.join(root, "a.txt"))).toBe("new a\n");
  });

  it("prepared: the workspace recovery rolls back inside and keeps the outside temporary file logged; unrestricted removes it", async () => {
    const log = await plantDeadWritersLog("prepared");
    await openIn("workspace");
    expect(await readdir(root)).toEqual(["a.txt"]);
    expect(await read(path.join(root, "a.txt"))).toBe("old a\n");
    expect((await readdir(outside)).sort()).toEqual([".atc-b.tmp", "b.txt", "c.txt"]);
    expect((JSON.parse(await readFile(log, "utf8")) as { entries: unknown[] }).entries).toHaveLength(2);
    await openIn("unrestricted");
    expect((await readdir(outside)).sort()).toEqual(["b.txt", "c.txt"]);
    expect(await read(path.join(outside, "b.txt"))).toBe("old b\n");
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });

  it("control: a log of files inside the workspace only is completed and removed by the workspace recovery", async () => {
    await writeFile(path.join(root, "a.txt"), "old a\n");
    await writeFile(path.join(root, ".atc-a.tmp"), "new a\n");
    await plantLog(root, "committed", [{ directory: root, name: "a.txt", temporary: ".atc-a.tmp", created: [] }]);
    await openIn("workspace");
    expect(await read(path.join(root, "a.txt"))).toBe("new a\n");
    expect(await readdir(intentDirectory(root))).toEqual([]);
  });
});
