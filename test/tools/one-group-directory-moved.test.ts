/**
 * Review of stop 33 (left then): on the one-group path of the file-changing tools, a parent
 * directory moved away (swapped for a copy, or with nothing put at its path) while the change's
 * temporary files were written took the renames through the held handle, and the call said ok for
 * files that were not at their paths. Now the last look before the commit point finds every
 * directory at its path or fails the change as `version_conflict` with nothing changed, as the
 * grouped path does. A real background process (directory-mover.mjs) moves the directory once a
 * temporary file of the change shows up, and only while the change still holds one open (written
 * and flushed, before its last look: `--while-open`, decided with the test's process held
 * stopped); the file is large (16 MB), so that is mostly so. Before, a mover slowed by load could
 * move the directory after the last look or the rename (the change then rightly ok, its file in the
 * moved directory): such a late mover now moves nothing ("late"), and the case runs again. A
 * swap's copy is put in place within the same hold: copied while the change went on, a half-made
 * copy let apply_patch (no pinned version) plan again on it, ok at the path (soak, 2 of 13 runs).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, realpath, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "../../src/tools/fs/confined-file-scope.js";
import { fileVersion } from "../../src/tools/fs/file-version.js";
import { intentDirectory, recoverNow } from "../../src/tools/fs/intent-log.js";
import { createFileTools } from "../../src/tools/index.js";
import { whileMoving } from "./support/while-moving.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const mover = path.join(repo, "test/tools/support/directory-mover.mjs");

/** 16 MB of numbered lines: writing and flushing its temporary file outlasts the mover's reaction (mostly, see the retries). */
const BIG = Buffer.from(Array.from({ length: 400_000 }, (_, line) => `line ${String(line).padStart(32, "0")}\n`).join(""));
const FIRST = `line ${"0".repeat(32)}\n`;

let base: string;
let workspace: string;
/** The workspace as each case starts: `dir` and `g/p`, each with big.txt and small.txt. */
async function seed(): Promise<void> {
  await rm(workspace, { recursive: true, force: true });
  await mkdir(path.join(workspace, "dir"), { recursive: true });
  await mkdir(path.join(workspace, "g", "p"), { recursive: true });
  for (const parent of ["dir", "g/p"]) {
    await writeFile(path.join(workspace, parent, "big.txt"), BIG);
    await writeFile(path.join(workspace, parent, "small.txt"), "small\n");
  }
}
beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "atc-one-group-")));
  workspace = path.join(base, "ws");
  await seed();
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

type Tool = "apply_patch" | "write" | "edit";

/** The call of `tool` changing `parent`/big.txt (and, for apply_patch, `parent`/small.txt too: a logged commit). */
function callOf(tool: Tool, parent: string): { name: string; input: Record<string, unknown> } {
  // Every call writes a 16 MB temporary file (the write appends: its new content is the file's and more).
  const big = `${parent}/big.txt`;
  const version = fileVersion(BIG);
  if (tool === "write")
    return { name: "write", input: { path: big, content: "written\n", append: true, expected_version: version } };
  if (tool === "edit")
    return { name: "edit", input: { path: big, old_text: FIRST, new_text: "edited\n", expected_version: version } };
  const small = `${parent}/small.txt`;
  const patch =
    `--- a/${big}\n+++ b/${big}\n@@ -1 +1 @@\n-${FIRST}+patched\n` +
    `--- a/${small}\n+++ b/${small}\n@@ -1 +1 @@\n-small\n+patched small\n`;
  return { name: "apply_patch", input: { patch } };
}

async function call(tool: Tool, parent: string): Promise<ToolCallResult> {
  const run = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  const { name, input } = callOf(tool, parent);
  return run.call(name, input);
}

/**
 * Runs the call while directory-mover.mjs watches `parent` and moves `victim` to "away"
 * (`--no-replacement`: nothing put back), only before the change's last look (`--while-open`).
 */
async function callWhileMoving(tool: Tool, parent: string, victim: string, replacement: boolean, extra: readonly string[] = []) {
  const options = [...(replacement ? ["--ready"] : ["--ready", "--no-replacement"]), "--while-open", ...extra];
  return whileMoving([mover, workspace, parent, victim, "away", ...options], () => call(tool, parent));
}

/** Every temporary file left anywhere under the test's directory, and the entries of the workspace's intent logs. */
async function leftBehind(): Promise<{ temporaries: string[]; logs: string[] }> {
  const temporaries = (await readdir(base, { recursive: true })).filter((entry) => /\.atc-[0-9a-f]+\.tmp$/.test(entry));
  const logs = (await readdir(intentDirectory(workspace)).catch(() => [] as string[])).filter((name) => name.endsWith(".json"));
  return { temporaries, logs };
}

/** A failure's diagnostics: the result, what the mover saw and said, and what big.txt holds at the path and in the moved directory. */
async function whereNow(result: ToolCallResult, output: string, parent: string, moved: string): Promise<string> {
  const state = async (relative: string) => {
    const bytes = await readFile(path.join(workspace, relative, "big.txt")).catch(() => undefined);
    if (bytes === undefined) return "absent";
    if (bytes.equals(BIG)) return "old";
    return `new (${bytes.length} bytes, ${fileVersion(bytes)})`;
  };
  const left = await leftBehind();
  return JSON.stringify({ result, mover: output, atPath: await state(parent), moved: await state(moved), left });
}

const CAN_IMMUTABLE = immutableWorks();

const TOOLS: readonly Tool[] = ["apply_patch", "write", "edit"];
/** The file's directory itself moved, or its parent (the grandparent of the file). */
const PLACES = [
  { parent: "dir", victim: "dir", moved: "away" },
  { parent: "g/p", victim: "g", moved: "away/p" },
] as const;

describe("one-group change: a parent directory moved while the change is made", () => {
  for (const tool of TOOLS) {
    for (const { parent, victim, moved } of PLACES) {
      for (const replacement of [true, false]) {
        const how = replacement ? "swapped for a copy" : "moved away, nothing at its path";
        it(`${tool}: ${victim} ${how} (file in ${parent}): refused, nothing changed anywhere`, async () => {
          // Before: ok, and the new content was in the moved directory (`${moved}`), not at the path.
          let { result, said, output } = await callWhileMoving(tool, parent, victim, replacement);
          // Under heavy load the mover may not run before the change is done (it then never sees
          // a temporary file, or sees none still open, and moves nothing: "never", "late"): the
          // change must then be ok and at its path, and the case is run again on a fresh workspace.
          for (let attempt = 1; said !== "moved" && attempt < 10; attempt++) {
            expect(result.ok, await whereNow(result, output, parent, moved)).toBe(true);
            expect((await readFile(path.join(workspace, parent, "big.txt"))).equals(BIG)).toBe(false);
            await seed();
            ({ result, said, output } = await callWhileMoving(tool, parent, victim, replacement));
          }
          expect(said).toBe("moved");
          // apply_patch without a pinned version plans again under the locks on what is there now
          // (as on the grouped path): with nothing at the path, the file it updates is not found.
          const code = tool === "apply_patch" && !replacement ? "file_not_found" : "version_conflict";
          expect(result, await whereNow(result, output, parent, moved)).toMatchObject({ ok: false, error: { code } });
          // The moved directory keeps its old content; the path holds the copy or nothing.
          expect((await readFile(path.join(base, "ws", moved, "big.txt"))).equals(BIG)).toBe(true);
          expect(await readFile(path.join(base, "ws", moved, "small.txt"), "utf8")).toBe("small\n");
          const atPath = await readFile(path.join(workspace, parent, "big.txt")).catch(() => undefined);
          if (replacement) expect(atPath?.equals(BIG)).toBe(true);
          else expect(atPath).toBeUndefined();
          // The temporary files were removed through the held directory (the moved one): none
          // anywhere, so no log is kept either.
          expect(await leftBehind()).toEqual({ temporaries: [], logs: [] });
        }, 120_000);
      }
    }
    it(`${tool}: positive control, no mover: ok and the change is at its path`, async () => {
      for (const { parent } of PLACES) {
        const result = await call(tool, parent);
        expect(result.ok, JSON.stringify(result)).toBe(true);
        const big = await readFile(path.join(workspace, parent, "big.txt"), "utf8");
        if (tool === "write") expect(big.endsWith("written\n")).toBe(true);
        else expect(big.startsWith(tool === "edit" ? "edited\n" : "patched\n")).toBe(true);
        expect(await leftBehind()).toEqual({ temporaries: [], logs: [] });
      }
    }, 120_000);
  }

  it.skipIf(!CAN_IMMUTABLE)(
    "a temporary file that cannot be removed from the moved directory stays named by an abandoned log until the directory is back",
    async () => {
      // As on the grouped path: the log, with the directory's device and inode, is all that names
      // the new content left in the moved directory. The mover makes that directory immutable.
      const away = path.join(workspace, "away");
      let outcome = await callWhileMoving("write", "dir", "dir", true, ["--immutable"]);
      for (let attempt = 1; outcome.said !== "moved" && attempt < 10; attempt++) {
        expect(outcome.result.ok, JSON.stringify(outcome.result)).toBe(true);
        await seed();
        outcome = await callWhileMoving("write", "dir", "dir", true, ["--immutable"]);
      }
      let left: Awaited<ReturnType<typeof leftBehind>>;
      let logged: { abandoned?: boolean; entries: { temporary?: string; identity?: string }[] }[];
      try {
        expect(outcome.said).toBe("moved");
        expect(outcome.result).toMatchObject({ ok: false, error: { code: "version_conflict" } });
        left = await leftBehind();
        logged = await Promise.all(
          left.logs.map(async (name) => JSON.parse(await readFile(path.join(intentDirectory(workspace), name), "utf8"))),
        );
      } finally {
        execFileSync("chattr", ["-i", away]);
      }
      expect(left.temporaries.length).toBe(1);
      expect(path.dirname(left.temporaries[0] as string)).toBe(path.join("ws", "away"));
      expect(logged).toHaveLength(1);
      expect(logged[0]?.abandoned).toBe(true);
      expect(logged[0]?.entries.map((entry) => entry.temporary)).toEqual([path.basename(left.temporaries[0] as string)]);
      expect(logged[0]?.entries[0]?.identity).toMatch(/^\d+:\d+$/);
      // The directory back at its path, a recovery (the next process's; here called as a new
      // process's first change would) removes the file and the log.
      await rm(path.join(workspace, "dir"), { recursive: true });
      await rename(away, path.join(workspace, "dir"));
      await recoverNow(createConfinedFileScope(workspace));
      expect(await leftBehind()).toEqual({ temporaries: [], logs: [] });
      expect((await readFile(path.join(workspace, "dir", "big.txt"))).equals(BIG)).toBe(true);
    },
    120_000,
  );
});

/** True where `chattr +i` works here (root on a file system that has the flag, as ext4). */
function immutableWorks(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(path.join(tmpdir(), "atc-chattr-"));
  try {
    execFileSync("chattr", ["+i", probe], { stdio: "ignore" });
    execFileSync("chattr", ["-i", probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
