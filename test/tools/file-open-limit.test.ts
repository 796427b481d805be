/**
 * Red team round 10 (leftover): apply_patch held up to 256 temporary files open at once, so under
 * a lower open-file limit a patch of a few hundred files always failed as too_many_open_files.
 * The window is now sized to the process's limit. Each case runs in a child under `ulimit -n`.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(repo, "test/tools/support/many-file-patch.mjs");
const FILES = 300;

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-open-limit-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Files `i` (even: existing, "old i") in directory `d{i % dirs}`, as many-file-patch.mjs expects. */
async function seed(dirs: number): Promise<void> {
  for (let d = 0; d < dirs; d++) await mkdir(path.join(workspace, `d${d}`), { recursive: true });
  for (let i = 0; i < FILES; i += 2) await writeFile(path.join(workspace, `d${i % dirs}`, `f${i}.txt`), `old ${i}\n`);
}

function patchUnder(limit: number, dirs: number): Promise<{ ok: boolean; error?: { code: string } }> {
  const config = JSON.stringify({ workspace, files: FILES, dirs });
  const command = `ulimit -n ${limit} && exec "${process.execPath}" --import tsx "${script}" '${config}'`;
  return new Promise((resolve, reject) => {
    execFile("/bin/sh", ["-c", command], { cwd: repo, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1) as string));
    });
  });
}

/** What each file holds now ("new", "old" or "missing"), and temporary files left behind. */
async function onDisk(dirs: number): Promise<{ states: Set<string>; leftovers: string[] }> {
  const states = new Set<string>();
  for (let i = 0; i < FILES; i++) {
    const text = await readFile(path.join(workspace, `d${i % dirs}`, `f${i}.txt`), "utf8").catch(() => "missing");
    states.add(text === "missing" ? text : text.startsWith("new") ? "new" : "old");
  }
  const leftovers = (await readdir(workspace, { recursive: true })).filter((entry) => /\.(tmp|part)$/.test(entry));
  return { states, leftovers };
}

describe("apply_patch under a low open-file limit", () => {
  it("a 300-file patch applies at ulimit -n 100 (one directory) and 240 (150 directories)", async () => {
    for (const [limit, dirs] of [
      [100, 1],
      [240, 150],
    ] as const) {
      await rm(workspace, { recursive: true, force: true });
      await mkdir(workspace);
      await seed(dirs);
      expect(await patchUnder(limit, dirs), `ulimit -n ${limit}, ${dirs} directories`).toEqual({ ok: true });
      expect(await onDisk(dirs)).toEqual({ states: new Set(["new"]), leftovers: [] });
    }
  }, 240_000);

  it("control: past the limit (a directory handle per file, 300 directories at 240) nothing changes", async () => {
    await seed(300);
    expect(await patchUnder(240, 300)).toMatchObject({ ok: false, error: { code: "too_many_open_files" } });
    const { states, leftovers } = await onDisk(300);
    expect(leftovers).toEqual([]);
    // All or nothing: the updated files still hold their old text and no added file exists.
    expect(states).toEqual(new Set(["old", "missing"]));
  }, 120_000);
});
