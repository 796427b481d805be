import fs, { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import type { ParentEntry } from "./file-scope.js";
import { readEntryWithStatsSync } from "./read-entry.js";

const directory = mkdtempSync(path.join(tmpdir(), "atc-read-entry-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function entry(name: string): ParentEntry {
  return {
    realPath: directory,
    created: [],
    name,
    at: (child) => path.join(directory, child),
    sync: async () => undefined,
    close: async () => undefined,
  };
}

function file(name: string, content: Buffer): ParentEntry {
  writeFileSync(path.join(directory, name), content);
  return entry(name);
}

describe("readEntryWithStatsSync with the bytes the caller expects", () => {
  it("hands back the expected buffer itself when the file holds exactly those bytes", () => {
    const expected = Buffer.from("line one\nline two\n");
    const read = readEntryWithStatsSync(file("same.txt", Buffer.from(expected)), "same.txt", true, expected);
    expect(read?.bytes).toBe(expected);
    // Control: without `expected` the same file is read into a buffer of its own.
    const plain = readEntryWithStatsSync(entry("same.txt"), "same.txt", true);
    expect(plain?.bytes).not.toBe(expected);
    expect(plain?.bytes.equals(expected)).toBe(true);
  });

  it("gives the file's own bytes when they differ, at the same size or not, and after another read", () => {
    const expected = Buffer.from("abcdef");
    const sameSize = readEntryWithStatsSync(file("other.txt", Buffer.from("abcdeX")), "other.txt", true, expected);
    expect(sameSize?.bytes).not.toBe(expected);
    expect(sameSize?.bytes.toString()).toBe("abcdeX");
    const longer = readEntryWithStatsSync(file("longer.txt", Buffer.from("abcdefg")), "longer.txt", true, expected);
    expect(longer?.bytes.toString()).toBe("abcdefg");
    const shorter = readEntryWithStatsSync(file("shorter.txt", Buffer.from("abc")), "shorter.txt", true, expected);
    expect(shorter?.bytes.toString()).toBe("abc");
    // The buffer handed back for a difference is not the reused scratch: a later read leaves it as it was.
    readEntryWithStatsSync(file("later.txt", Buffer.from("zzzzzz")), "later.txt", true, expected);
    expect(sameSize?.bytes.toString()).toBe("abcdeX");
  });

  it("compares files larger than the scratch buffer by reading them whole, and finds a missing one absent", () => {
    const big = Buffer.alloc(2 * 1024 * 1024, 0x61);
    const read = readEntryWithStatsSync(file("big.txt", big), "big.txt", true, big);
    // Identity and equality as booleans: a failed match of megabyte buffers would print them.
    expect(read?.bytes === big).toBe(false);
    expect(read?.bytes.equals(big)).toBe(true);
    const middle = Buffer.alloc(300 * 1024, 0x62);
    expect(readEntryWithStatsSync(file("middle.txt", middle), "middle.txt", true, middle)?.bytes === middle).toBe(true);
    expect(readEntryWithStatsSync(entry("missing.txt"), "missing.txt", true, middle)).toBeUndefined();
  });

  it("reads a file that still holds the expected bytes with one read (its short read is its end)", () => {
    const expected = Buffer.from("one read is enough\n");
    const parent = file("once.txt", Buffer.from(expected));
    const original = fs.readSync;
    let reads = 0;
    vi.spyOn(fs, "readSync").mockImplementation((...args: Parameters<typeof fs.readSync>) => {
      reads++;
      return original(...args);
    });
    syncBuiltinESMExports();
    try {
      expect(readEntryWithStatsSync(parent, "once.txt", true, expected)?.bytes).toBe(expected);
      expect(reads).toBe(1);
      // Control: a file of another size is read whole.
      reads = 0;
      const grown = readEntryWithStatsSync(file("grown.txt", Buffer.from(`${expected}more`)), "grown.txt", true, expected);
      expect(grown?.bytes.toString()).toBe(`${expected}more`);
    } finally {
      vi.restoreAllMocks();
      syncBuiltinESMExports();
    }
  });
});
