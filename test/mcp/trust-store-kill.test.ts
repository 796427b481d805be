// kill -9 of a real process while it saves trust decisions, 20 times over one file: the next
// process must read a whole trust file (never a torn one) holding every decision the killed one
// had acknowledged.
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { JsonFileMcpTrustStore } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { entryUrl, spawnNode } from "../support/child-entry.js";
import { stopProcess } from "../support/stop-process.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
const writer = fileURLToPath(new URL("./fixtures/trust-writer.mjs", import.meta.url));
// The built entry when it is current (npm test builds first): plain node starts in a tenth of the
// time tsx does. Otherwise the source, under tsx (test/support/child-entry.ts).
const entry = entryUrl("mcp/index");
// Each writer is a new process importing the whole mcp entry (about 0.5-1 s of CPU): 20 rounds keep
// the file near 20 s of the suite; each round kills after 1-7 acknowledged saves, so the kill lands
// at varied points of a save.
const ROUNDS = 20;

let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), "mcp-trust-kill-"));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** Starts a writer and kills it with SIGKILL a few saves after it began; resolves the last acknowledged index. */
async function writeUntilKilled(file: string, first: number, savesBeforeKill: number): Promise<number> {
  const child: ChildProcess = spawnNode(writer, [entry, file, String(first)], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let acknowledged = first - 1;
  let started = false;
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    if (line === "ready") started = true;
    else acknowledged = Number(line);
    if (started && acknowledged - first + 1 >= savesBeforeKill) {
      // Lines already written stay readable; anything the child acknowledges later is read too.
      child.kill("SIGKILL");
      break;
    }
  }
  await exited;
  return acknowledged;
}

describe("JsonFileMcpTrustStore under kill -9", () => {
  it(`${ROUNDS} writers killed mid-save: every next reader finds a whole file with every acknowledged decision`, async () => {
    const file = join(directory, "trust.json");
    let next = 0;
    let seenSizes = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const acknowledged = await writeUntilKilled(file, next, 1 + (round % 7));
      const text = await readFile(file, "utf8");
      const parsed = JSON.parse(text) as { version: number; files: Record<string, { digest: string }> };
      expect(parsed.version).toBe(1);
      const store = new JsonFileMcpTrustStore(file);
      for (let index = 0; index <= acknowledged; index++) {
        expect(await store.isTrusted(`/w/${index}/.mcp.json`, String(index).repeat(64))).toBe(true);
      }
      // Saves after the last acknowledged one may have landed before the kill arrived; never a gap.
      const count = Object.keys(parsed.files).length;
      expect(count).toBeGreaterThan(acknowledged);
      expect(Object.keys(parsed.files).sort()).toEqual(
        Array.from({ length: count }, (_, index) => `/w/${index}/.mcp.json`).sort(),
      );
      seenSizes += text.length;
      next = Object.keys(parsed.files).length;
    }
    expect(seenSizes).toBeGreaterThan(0);
    // A killed save may leave its temporary file (nothing runs after SIGKILL); the trust file itself is never one.
    const names = await readdir(directory);
    expect(names).toContain("trust.json");
    const leftovers = names.filter((name) => name !== "trust.json");
    for (const name of leftovers) expect(name).toMatch(/^\.trust\.json\.[0-9a-f-]{36}\.[0-9]+\.tmp$/);
    // Recovery: once they are old enough (backdated here, as time would), the next save removes
    // every dead writer's temporary file and nothing else. On the old code they stayed forever.
    const decoys = await plantDecoys(directory);
    await ageAll(directory, leftovers);
    const store = new JsonFileMcpTrustStore(file);
    await store.trust("/w/recovered/.mcp.json", "r".repeat(64));
    expect((await readdir(directory)).sort()).toEqual(["trust.json", ...decoys].sort());
    expect(await store.isTrusted("/w/0/.mcp.json", "0".repeat(64))).toBe(true);
    expect(await store.isTrusted("/w/recovered/.mcp.json", "r".repeat(64))).toBe(true);
  }, 600_000);
});

const UUID = "0123abcd-0123-4567-89ab-0123456789ab";

/** Files beside the trust file that are not a dead writer's temporary file: they must stay. */
async function plantDecoys(directory: string): Promise<string[]> {
  const decoys = [
    `.trust.json.${UUID}.${process.ppid}.tmp`, // a live writer (this process's parent)
    ".trust.json.not-a-uuid.tmp", // someone else's naming
    `.other.json.${UUID}.999999.tmp`, // another target's
    "trust.json.bak",
    `.trust.json.${randomUUID()}.tmp`, // the old naming, too young to tell
  ];
  for (const name of decoys) await writeFile(join(directory, name), "keep");
  // A directory and a link of the pattern: never removed, never followed.
  await mkdir(join(directory, `.trust.json.${UUID}.999998.tmp`));
  await symlink(join(directory, "trust.json.bak"), join(directory, `.trust.json.${UUID}.999997.tmp`));
  await ageAll(directory, decoys.slice(0, 4));
  return [...decoys, `.trust.json.${UUID}.999998.tmp`, `.trust.json.${UUID}.999997.tmp`];
}

async function ageAll(directory: string, names: readonly string[]): Promise<void> {
  const past = new Date(Date.now() - 60_000);
  for (const name of names) await utimes(join(directory, name), past, past);
}

describe("stale temporary files of a trust file", () => {
  it("a dead writer's is removed by the next save only once 10 s old; a live writer's and a young one stay", async () => {
    const file = join(directory, "trust.json");
    const dead = `.trust.json.${UUID}.999999.tmp`;
    const live = `.trust.json.${randomUUID()}.${process.ppid}.tmp`;
    const sleeping = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });
    const other = `.trust.json.${randomUUID()}.${sleeping.pid}.tmp`;
    try {
      for (const name of [dead, live, other]) await writeFile(join(directory, name), "{");
      const store = new JsonFileMcpTrustStore(file);
      await store.trust("/w/a/.mcp.json", "a".repeat(64));
      // Young: kept even though its writer (pid 999999) does not exist.
      expect((await readdir(directory)).sort()).toEqual([dead, other, live, "trust.json"].sort());
      await ageAll(directory, [dead, live, other]);
      await store.trust("/w/b/.mcp.json", "b".repeat(64));
      expect((await readdir(directory)).sort()).toEqual([other, live, "trust.json"].sort());
      sleeping.kill("SIGKILL");
      await new Promise((resolve) => sleeping.once("exit", resolve));
      await store.trust("/w/c/.mcp.json", "c".repeat(64));
      expect((await readdir(directory)).sort()).toEqual([live, "trust.json"].sort());
    } finally {
      // A failed check before its kill above: ended with the test, and waited for.
      await stopProcess(sleeping);
    }
  });
});
