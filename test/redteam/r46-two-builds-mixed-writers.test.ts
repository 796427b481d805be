// Red team round 46 (held): two real processes, one loading the ESM build and one the CommonJS
// build, change one file at once through write (append), edit, apply_patch, undo and redo, each
// adding lines of its own or taking its own last change back. Every result is checked against the
// disk at the end: each line a writer was told is in the file is there, and no line of its own it
// was told is gone (undone, or never acknowledged) is; no line is doubled; nothing is left behind.
// An undo beside the other writer's changes either takes back only its own line or is refused.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const run = promisify(execFile);
const repo = path.resolve(import.meta.dirname, "../..");
const worker = path.join(repo, "test/redteam/support/r46-mixed-writer.mjs");
const built = existsSync(path.join(repo, "dist/tools/index.cjs")) && existsSync(path.join(repo, "dist/tools/index.js"));
const STEPS = 36;

interface WriterReport {
  readonly present: string[];
  readonly counts: Record<string, number>;
}

let workspace: string;
let control: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-r46-mixed-"));
  control = await mkdtemp(path.join(tmpdir(), "atc-r46-go-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(control, { recursive: true, force: true });
});

describe.skipIf(!built)(
  "ESM and CJS writers mixing write, edit, apply_patch, undo and redo on one file (needs the build)",
  () => {
    it("every acknowledged line is on disk, every undone one gone, none doubled, nothing left", async () => {
      await writeFile(path.join(workspace, "f.txt"), "END\n");
      const go = path.join(control, "go");
      const tags = ["esm", "cjs"] as const;
      const children = tags.map((format) =>
        run(process.execPath, [worker, JSON.stringify({ workspace, format, tag: format, count: STEPS, go })], {
          cwd: repo,
          maxBuffer: 1 << 20,
        }),
      );
      // Both have loaded long before: start them together.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await writeFile(go, "");
      const reports = (await Promise.all(children)).map(({ stdout }) => JSON.parse(stdout) as WriterReport);
      const lines = (await readFile(path.join(workspace, "f.txt"), "utf8")).split("\n").filter((line) => line !== "");
      expect(lines).toContain("END");
      expect(new Set(lines).size).toBe(lines.length);
      reports.forEach((report, index) => {
        const tag = tags[index] as string;
        const own = lines.filter((line) => line.startsWith(`${tag}-`)).sort();
        expect(own, `${tag}: ${JSON.stringify(report.counts)}`).toEqual([...report.present].sort());
        // The attack ran: changes landed, and some undo took one back beside the other writer.
        expect(report.counts["append:ok"] ?? 0).toBeGreaterThan(0);
        expect(report.counts["undo:ok"] ?? 0).toBeGreaterThan(0);
      });
      expect(await readdir(workspace)).toEqual(["f.txt"]);
    }, 60_000);
  },
);
