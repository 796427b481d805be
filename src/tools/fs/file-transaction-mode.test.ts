import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createConfinedFileScope } from "./confined-file-scope.js";
import { applyFileChanges, currentUmask } from "./file-transaction.js";

let workspace: string;
let umaskBefore: number;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-mode-"));
  umaskBefore = process.umask();
});
afterEach(async () => {
  process.umask(umaskBefore);
  await rm(workspace, { recursive: true, force: true });
});

// A user that is not root may not replace a file it may not write (0o400: refused, see
// assertWritable); root may, as the kernel lets it write one.
const MODES = [0o644, 0o666, 0o600, 0o755, 0o777, 0o664, 0o400, 0o1644].filter(
  (mode) => process.geteuid?.() === 0 || (mode & 0o200) !== 0,
);

/** Rewrites one file per mode in one transaction; returns each file's mode afterwards. */
async function rewriteWithModes(): Promise<number[]> {
  const names = MODES.map((mode) => `m${mode.toString(8)}.txt`);
  for (const [index, name] of names.entries()) {
    await writeFile(path.join(workspace, name), "before\n");
    await chmod(path.join(workspace, name), MODES[index] as number);
  }
  await applyFileChanges(
    createConfinedFileScope(workspace),
    names.map((name) => ({ path: name, after: `after ${name}\n` })),
  );
  for (const name of names) expect(await readFile(path.join(workspace, name), "utf8")).toBe(`after ${name}\n`);
  return Promise.all(names.map(async (name) => (await stat(path.join(workspace, name))).mode & 0o7777));
}

describe("file transaction modes", () => {
  it("reads the umask the kernel applies, without changing it", async () => {
    for (const mask of [0o022, 0o077, 0o002, 0o000]) {
      process.umask(mask);
      expect(currentUmask()).toBe(mask);
      expect(process.umask()).toBe(mask);
    }
  });

  it.each(["022", "077", "002", "000"])("keeps every replaced file's mode exactly under umask %s", async (octal) => {
    const mask = Number.parseInt(octal, 8);
    process.umask(mask);
    // Set-id bits are never carried over (see existingMode); the sticky bit is.
    expect(await rewriteWithModes()).toEqual(MODES);
  });
});
