import { closeSync, fstatSync, lstatSync, mkdirSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { sameDirectory } from "./file-transaction.js";

// The last look's comparison, as used off Linux alone: the held directory's fstat against an
// lstat at its path, by device and inode, never by path string.
let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "atc-same-directory-"));
});
afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

it("is the held directory at its path by device and inode, spelled any way", () => {
  mkdirSync(path.join(base, "d"));
  const fd = openSync(path.join(base, "d"), "r");
  try {
    const held = fstatSync(fd);
    expect(sameDirectory(held, lstatSync(path.join(base, "d")))).toBe(true);
    // Another spelling of the same path (on a case-insensitive volume, the case too).
    expect(sameDirectory(held, lstatSync(path.join(base, ".", "d", "..", "d")))).toBe(true);
    // Another directory, a symbolic link to the held one (not followed), a file: not it.
    mkdirSync(path.join(base, "other"));
    expect(sameDirectory(held, lstatSync(path.join(base, "other")))).toBe(false);
    symlinkSync(path.join(base, "d"), path.join(base, "link"));
    expect(sameDirectory(held, lstatSync(path.join(base, "link")))).toBe(false);
    writeFileSync(path.join(base, "file"), "x");
    expect(sameDirectory(held, lstatSync(path.join(base, "file")))).toBe(false);
  } finally {
    closeSync(fd);
  }
});
