import { fstatSync, linkSync, lstatSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ReplacedInodes } from "./replaced-inodes.js";

const directory = mkdtempSync(path.join(tmpdir(), "atc-replaced-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const at = (name: string) => path.join(directory, name);
/** True when `fd` no longer refers to the inode `ino` (closed, or its number reused by another open). */
const released = (fd: number, ino: number) => {
  try {
    return fstatSync(fd).ino !== ino;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EBADF";
  }
};

describe.runIf(process.platform === "linux")("ReplacedInodes", () => {
  it("keeps the replaced file alive through the rename and lets it go after", async () => {
    writeFileSync(at("target.txt"), "old content");
    writeFileSync(at("new.tmp"), "new content");
    const replaced = new ReplacedInodes();
    const held = replaced.hold(at("target.txt"), lstatSync(at("target.txt")));
    expect(held).toBeTypeOf("number");
    const before = fstatSync(held as number);
    renameSync(at("new.tmp"), at("target.txt"));
    // The old inode has no name left but is still there: the rename did not free it.
    const orphan = fstatSync(held as number);
    expect([orphan.ino, orphan.nlink]).toEqual([before.ino, 0]);
    expect(lstatSync(at("target.txt")).ino).not.toBe(before.ino);
    replaced.release(held);
    await replaced.settled();
    expect(() => fstatSync(held as number)).toThrow(/EBADF/);
  });

  it("takes no reference for what a rename does not free: absent, a symlink, a file with two links", () => {
    writeFileSync(at("plain.txt"), "x");
    linkSync(at("plain.txt"), at("second-link.txt"));
    symlinkSync("plain.txt", at("link"));
    const replaced = new ReplacedInodes();
    expect(replaced.hold(at("absent.txt"), null)).toBeUndefined();
    expect(replaced.hold(at("link"), lstatSync(at("link")))).toBeUndefined();
    expect(replaced.hold(at("plain.txt"), lstatSync(at("plain.txt")))).toBeUndefined();
    // Control: once the second link is gone, the same file is held.
    rmSync(at("second-link.txt"));
    const held = replaced.hold(at("plain.txt"), lstatSync(at("plain.txt")));
    expect(held).toBeTypeOf("number");
    replaced.release(held);
  });

  it("holds at most 128 at once, and again once they are closed; no descriptor is left", async () => {
    writeFileSync(at("many.txt"), "x");
    const stats = lstatSync(at("many.txt"));
    const replaced = new ReplacedInodes();
    const held = Array.from({ length: 130 }, () => replaced.hold(at("many.txt"), stats));
    expect(held.filter((fd) => fd !== undefined)).toHaveLength(128);
    expect(held.slice(128)).toEqual([undefined, undefined]);
    // Control: while held, each descriptor is the file.
    expect(held.every((fd) => fd === undefined || !released(fd, stats.ino))).toBe(true);
    for (const fd of held) replaced.release(fd);
    await replaced.settled();
    expect(held.every((fd) => fd === undefined || released(fd, stats.ino))).toBe(true);
    const again = replaced.hold(at("many.txt"), stats);
    expect(again).toBeTypeOf("number");
    replaced.release(again);
    await replaced.settled();
    expect(released(again as number, stats.ino)).toBe(true);
  });
});
