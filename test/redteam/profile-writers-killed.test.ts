/**
 * Red team round 13 (held): two real processes write one profile through ProfileDirectory and
 * are killed with kill -9 mid-write; two others create one name at once. The writes are atomic
 * (temporary file, flush, rename; creation by hard link), so what is left always parses, and
 * exactly one create wins.
 */
import type { ChildProcess } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ProfileDirectory } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnNode } from "../support/child-entry.js";
import { removeTree } from "../support/remove-tree.js";
import { stopProcess } from "../support/stop-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const writerScript = fileURLToPath(new URL("./support/profile-writer.mjs", import.meta.url));
let directory: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "redteam-profile-writers-"));
});
afterEach(async () => {
  // Waited for: a save a writer is making when the signal comes still lands in `directory`.
  await Promise.all(children.splice(0).map((child) => stopProcess(child)));
  await removeTree(directory);
});

function writer(...args: string[]): { child: ChildProcess; firstLine: Promise<string> } {
  const child = spawnNode(writerScript, [directory, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })[Symbol.asyncIterator]();
  const firstLine = lines.next().then((line) => (line.done === true ? "(ended)" : line.value));
  return { child, firstLine };
}

const killed = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

describe("profiles written by several processes", () => {
  it("two writers killed with kill -9 mid-write leave a profile that parses", { timeout: 60_000 }, async () => {
    const writers = [writer("shared", "a"), writer("shared", "b")];
    expect(await Promise.all(writers.map((each) => each.firstLine))).toEqual(["ready", "ready"]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await Promise.all(writers.map((each) => killed(each.child)));
    const listed = await new ProfileDirectory(directory).list();
    expect(JSON.stringify(listed.broken)).toBe("[]");
    expect(listed.profiles.map((profile) => profile.name)).toEqual(["shared"]);
    expect(listed.profiles[0]?.description).toMatch(/^writer [ab] round \d+$/);
  });

  it("two processes creating one name at once: exactly one wins, the other is profile_exists", { timeout: 60_000 }, async () => {
    const creators = [writer("race", "a", "create"), writer("race", "b", "create")];
    expect((await Promise.all(creators.map((each) => each.firstLine))).sort()).toEqual(["created", "profile_exists"]);
    const listed = await new ProfileDirectory(directory).list();
    expect(JSON.stringify(listed.broken)).toBe("[]");
    expect(listed.profiles.map((profile) => profile.name)).toEqual(["race"]);
  });
});
