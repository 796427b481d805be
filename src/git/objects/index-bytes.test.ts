import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unconfinedReader } from "../git-file-reader.js";
import { PagedIndexFile } from "./index-bytes.js";
import { PackIndex } from "./pack-index.js";

// A new process used to read every pack index whole (3.4 MB for the bench's 20,000 commits: 12-17
// ms of CPU, mostly page faults on the new buffer) before its first lookup; it now reads the
// 16 KiB pages a lookup touches.
let directory: string;
let indexPath: string;
let ids: string[];

beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), "atc-index-bytes-"));
  execFileSync("git", ["init", "-q", directory]);
  // 6,000 blobs in one pack: an index of about 170 KB, eleven pages.
  const blobs = Array.from({ length: 6000 }, (_, index) => `blob\ndata ${String(index).length}\n${index}\n`).join("");
  execFileSync("git", ["-C", directory, "fast-import", "--quiet"], { input: blobs });
  const packDirectory = path.join(directory, ".git", "objects", "pack");
  indexPath = path.join(packDirectory, readdirSync(packDirectory).find((name) => name.endsWith(".idx")) as string);
  ids = execFileSync("git", ["show-index"], { input: readFileSync(indexPath), encoding: "utf8", maxBuffer: 1 << 26 })
    .trim()
    .split("\n")
    .map((line) => line.split(" ")[1] as string);
}, 60_000);

afterAll(() => rmSync(directory, { recursive: true, force: true }));

const raw = (id: string) => Buffer.from(id, "hex");

describe("a pack index read by pages", () => {
  it("finds every object at the offset the whole index gives, and misses what it lacks", () => {
    const whole = PackIndex.parse(readFileSync(indexPath));
    const file = PagedIndexFile.open(indexPath, unconfinedReader()) as PagedIndexFile;
    const paged = PackIndex.read(file);
    expect(ids.length).toBe(6000);
    expect(paged.count).toBe(6000);
    for (const id of ids) {
      const offset = paged.offsetOf(raw(id));
      expect(offset).toBeDefined();
      expect(offset).toBe(whole.offsetOf(raw(id)));
    }
    expect(paged.offsetOf(raw("00".repeat(20)))).toBe(whole.offsetOf(raw("00".repeat(20))));
    expect(paged.offsetOf(raw("ff".repeat(20)))).toBeUndefined();
    const prefix = (ids[17] as string).slice(0, 3);
    expect(paged.withPrefix(prefix)).toEqual(whole.withPrefix(prefix));
    paged.close();
  });

  it("reads a few pages for one lookup, not the whole file (control: all lookups read it all)", () => {
    const size = readFileSync(indexPath).length;
    expect(size).toBeGreaterThan(10 * 16 * 1024);
    const file = PagedIndexFile.open(indexPath, unconfinedReader()) as PagedIndexFile;
    const index = PackIndex.read(file);
    expect(index.offsetOf(raw(ids[4321] as string))).toBeDefined();
    expect(file.loadedBytes).toBeLessThanOrEqual(4 * 16 * 1024);
    for (const id of ids) index.offsetOf(raw(id));
    expect(file.loadedBytes).toBeGreaterThan(size * 0.9);
    expect(file.loadedBytes).toBeLessThanOrEqual(size);
    // Closed, it reads again from a new descriptor.
    index.close();
    expect(index.offsetOf(raw(ids[0] as string))).toBeDefined();
    index.close();
  });

  it("gives the same bytes as the file across page boundaries, and refuses reads past its end", () => {
    const bytesFile = path.join(directory, "bytes");
    const data = Buffer.from(Array.from({ length: 70_000 }, (_, index) => (index * 7919) % 251));
    writeFileSync(bytesFile, data);
    const file = PagedIndexFile.open(bytesFile, unconfinedReader()) as PagedIndexFile;
    for (const at of [0, 16_380, 16_381, 16_382, 16_383, 16_384, 32_766, 69_996])
      expect(file.u32(at)).toBe(data.readUInt32BE(at));
    expect(file.bytes(16_000, 40_000).equals(data.subarray(16_000, 56_000))).toBe(true);
    expect(() => file.u32(69_997)).toThrow(/truncated/);
    expect(() => file.bytes(69_990, 11)).toThrow(/truncated/);
    file.close();
    expect(PagedIndexFile.open(path.join(directory, "missing"), unconfinedReader())).toBeUndefined();
  });
});
