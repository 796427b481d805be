// Red team round 11: two processes, one loading the ESM build and one the CommonJS build, edit
// one file on a 1 MiB tmpfs while a third fills and frees the disk every few milliseconds, so
// some edits run into ENOSPC part way (their temporary file, the lock file or the intent log).
// A result must never claim a state that is not on disk: every edit answered ok is in the file,
// no edit answered with an error is, and nothing is left behind.
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/redteam/support/enospc-editor.mjs");
const built = existsSync(path.join(repo, "dist/tools/index.cjs")) && existsSync(path.join(repo, "dist/tools/index.js"));
const isRoot = process.getuid?.() === 0;
const EDITS = 60;

let mountPoint: string;
let control: string;
beforeEach(async () => {
  mountPoint = await mkdtemp(path.join(tmpdir(), "atc-enospc-two-"));
  control = await mkdtemp(path.join(tmpdir(), "atc-enospc-go-"));
});
afterEach(async () => {
  await rm(mountPoint, { recursive: true, force: true });
  await rm(control, { recursive: true, force: true });
});

interface EditorReport {
  readonly ok: string[];
  readonly failed: [string, string][];
}

async function editors(workspace: string): Promise<EditorReport[]> {
  const go = path.join(control, "go");
  const children = (["esm", "cjs"] as const).map((format) =>
    run(process.execPath, [worker, JSON.stringify({ workspace, format, tag: format, count: EDITS, go })], {
      cwd: repo,
      maxBuffer: 1 << 20,
    }),
  );
  // Both have loaded and warmed up long before: start them together.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  await writeFile(go, "");
  return (await Promise.all(children)).map(({ stdout }) => JSON.parse(stdout) as EditorReport);
}

/** Fills the disk and frees it again, over and over, until `stop` fires. */
async function filler(workspace: string, stop: AbortSignal): Promise<number> {
  let fills = 0;
  const file = path.join(workspace, "filler.bin");
  while (!stop.aborted) {
    await writeFile(file, Buffer.alloc(1024 * 1024)).catch(() => undefined);
    fills++;
    await new Promise((resolve) => setTimeout(resolve, 3));
    await rm(file, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
  await rm(file, { force: true });
  return fills;
}

describe.skipIf(!isRoot || !built)("ESM and CJS editors on a disk that fills and frees (needs root and the build)", () => {
  it("every edit answered ok is on disk, none answered with an error is, nothing left behind", async () => {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]);
    try {
      await writeFile(path.join(mountPoint, "f.txt"), "END\n");
      const stop = new AbortController();
      const filling = filler(mountPoint, stop.signal);
      let reports: EditorReport[];
      try {
        reports = await editors(mountPoint);
      } finally {
        stop.abort();
      }
      await filling;
      const lines = (await readFile(path.join(mountPoint, "f.txt"), "utf8")).split("\n");
      const ok = reports.flatMap((report) => report.ok);
      const failed = reports.flatMap((report) => report.failed);
      expect(ok.filter((line) => !lines.includes(line))).toEqual([]);
      expect(failed.filter(([line]) => lines.includes(line))).toEqual([]);
      // Each acknowledged line exactly once, in one file that still ends in END.
      expect(lines.slice(-2)).toEqual(["END", ""]);
      expect(lines.slice(0, -2).sort()).toEqual([...ok].sort());
      expect((await readdir(mountPoint)).sort()).toEqual(["f.txt"]);
      // The disk really ran full under them, and edits still landed between the fills.
      expect(failed.map(([, code]) => code)).toContain("no_space");
      expect(ok.length).toBeGreaterThan(0);
      expect(new Set(failed.map(([, code]) => code))).toEqual(new Set(["no_space"]));
    } finally {
      execFileSync("umount", [mountPoint]);
    }
  }, 180_000);
});
