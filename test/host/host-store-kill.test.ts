// Stop 37: a host store's save killed with kill -9 (between its temporary file's creation and
// the rename) left `.<name>.<uuid>.tmp` beside the profile forever: nothing runs after SIGKILL,
// and no later save looked. Now the temporary names its writer's pid and the next save removes
// those of dead writers (at least 10 s old), as the MCP trust file's saves do; a live writer's,
// even one stopped mid-save, stays, and that writer's save completes.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface, type Interface } from "node:readline";
import { fileURLToPath } from "node:url";
import { ProfileDirectory } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnNode } from "../support/child-entry.js";
import { removeTree } from "../support/remove-tree.js";
import { stopProcess } from "../support/stop-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const saverScript = fileURLToPath(new URL("./support/profile-saver.mjs", import.meta.url));
// Each saver is a new process (plain node on the build when it is current: about 0.5 s of CPU to start): 8 rounds.
const ROUNDS = 8;
// A save's temporary file, with its writer's pid (the old code's had none).
const TEMPORARY = /^\.shared\.toml\.[0-9a-f-]{36}(?:\.([0-9]+))?\.tmp$/;

let directory: string;
const children: ChildProcess[] = [];
beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), "host-store-kill-"));
});
afterEach(async () => {
  // Waited for: a save a saver is making when the signal comes still lands in `directory`.
  await Promise.all(children.splice(0).map((child) => stopProcess(child)));
  await removeTree(directory);
});

interface Saver {
  readonly child: ChildProcess;
  readonly lines: Interface;
  /** Resolves the next line the saver prints ("(ended)" when it exits). */
  next(): Promise<string>;
}

function saver(): Saver {
  const child = spawnNode(saverScript, [directory, "shared"], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const iterator = lines[Symbol.asyncIterator]();
  return { child, lines, next: () => iterator.next().then((line) => (line.done === true ? "(ended)" : line.value)) };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });

/**
 * Stops a saver with SIGSTOP until it is caught with its temporary file on disk (mid-save);
 * resolves that file's name, or `undefined` when 500 tries never caught it. The saver stays
 * stopped. `ours` tells the saver's temporary from others (by its pid, or as one not there before).
 */
async function stopMidSave(
  child: ChildProcess,
  ours: (name: string, pid: string | undefined) => boolean,
): Promise<string | undefined> {
  for (let attempt = 0; attempt < 500; attempt++) {
    child.kill("SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const found = (await readdir(directory)).find((name) => {
      const match = TEMPORARY.exec(name);
      return match !== null && ours(name, match[1]);
    });
    if (found !== undefined) return found;
    child.kill("SIGCONT");
    await new Promise((resolve) => setTimeout(resolve, 1 + (attempt % 7)));
  }
  return undefined;
}

async function ageAll(names: readonly string[]): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  for (const name of names) await utimes(path.join(directory, name), past, past);
}

describe("a host store's saves killed with kill -9", () => {
  it(`${ROUNDS} savers killed mid-save: the profile always parses; the next save removes the dead writers' temporaries and nothing else`, async () => {
    for (let round = 0; round < ROUNDS; round++) {
      const earlier = new Set(await readdir(directory));
      const each = saver();
      // Kill after 1-4 acknowledged saves, so the kill lands at varied points of a save; on odd
      // rounds, only once the writer is caught with its temporary file on disk (surely mid-save).
      for (let saves = 0; saves < 1 + (round % 4); saves++) expect(await each.next()).toMatch(/^\d+$/);
      const caught = round % 2 === 1 ? await stopMidSave(each.child, (name) => !earlier.has(name)) : undefined;
      if (round % 2 === 1) expect(caught, `round ${round}`).toBeDefined();
      each.child.kill("SIGKILL");
      await exited(each.child);
      // The fault was met: the writer killed mid-save left its temporary.
      if (caught !== undefined) expect(await readdir(directory)).toContain(caught);
      const read = await new ProfileDirectory(directory).read("shared");
      expect(read, `round ${round}`).toMatchObject({ ok: true });
    }
    const names = await readdir(directory);
    const leftovers = names.filter((name) => name !== "shared.toml");
    // (A later saver may have removed an earlier one's already: the rounds take over 10 s.)
    expect(leftovers.length).toBeGreaterThan(0);
    for (const name of leftovers) expect(name).toMatch(TEMPORARY);
    // Files beside the profile that are not a dead writer's temporary: they must stay.
    const uuid = "0123abcd-0123-4567-89ab-0123456789ab";
    const decoys = [
      `.shared.toml.${uuid}.${process.ppid}.tmp`, // a live writer (a process alive: this one's parent)
      ".shared.toml.not-a-uuid.tmp",
      `.other.toml.${uuid}.999999.tmp`, // another profile's
      "notes.txt",
    ];
    for (const name of decoys) await writeFile(path.join(directory, name), "keep");
    await mkdir(path.join(directory, `.shared.toml.${uuid}.999998.tmp`));
    await symlink(path.join(directory, "notes.txt"), path.join(directory, `.shared.toml.${uuid}.999997.tmp`));
    const kept = [...decoys, `.shared.toml.${uuid}.999998.tmp`, `.shared.toml.${uuid}.999997.tmp`];
    // Young: a dead writer's temporary stays until it is 10 s old (its pid may be another namespace's).
    const young = `.shared.toml.${randomUUID()}.999999.tmp`;
    await writeFile(path.join(directory, young), "{");
    // Recovery: once old enough (backdated, as time would), the next save removes them all.
    await ageAll([...leftovers, ...decoys]);
    const store = new ProfileDirectory(directory);
    await store.replace({ name: "shared", description: "recovered again", instructions: "Back." });
    expect((await readdir(directory)).sort()).toEqual(["shared.toml", young, ...kept].sort());
    expect((await store.read("shared"))?.ok).toBe(true);
  }, 300_000);

  it("a live writer stopped mid-save keeps its temporary, and its save completes after it resumes", async () => {
    const live = saver();
    expect(await live.next()).toBe("0");
    const pid = live.child.pid as number;
    const temporary = await stopMidSave(live.child, (_name, writer) => writer === String(pid));
    expect(temporary, "the writer was caught mid-save").toBeDefined();
    // Old enough to be removed if its writer were dead: it is alive (stopped), so it stays.
    await ageAll([temporary as string]);
    const store = new ProfileDirectory(directory);
    await store.replace({ name: "shared", description: "from the test", instructions: "Here." });
    expect(await readdir(directory)).toContain(temporary);
    live.child.kill("SIGCONT");
    // The writer's save completes (its rename finds its temporary) and it goes on saving.
    for (let waited = 0; waited < 10_000 && (await readdir(directory)).includes(temporary as string); waited += 10) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await readdir(directory)).not.toContain(temporary);
    live.child.kill("SIGKILL");
    await exited(live.child);
    const printed: string[] = [];
    for (let line = await live.next(); line !== "(ended)"; line = await live.next()) printed.push(line);
    // Every save acknowledged, none failed (a removed temporary fails the rename with ENOENT).
    expect(printed.filter((line) => !/^\d+$/.test(line))).toEqual([]);
    // Control: once that writer is dead, an aged temporary of its pid is removed by the next save.
    const dead = `.shared.toml.${randomUUID()}.${pid}.tmp`;
    await writeFile(path.join(directory, dead), "x");
    await ageAll([dead]);
    await store.replace({ name: "shared", description: "after", instructions: "Done." });
    expect(await readdir(directory)).not.toContain(dead);
  }, 120_000);
});
