import { randomUUID } from "node:crypto";
import { mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeStaleTemporaries, temporaryFileDone, temporaryFileName } from "./stale-temporaries.js";

// A container's node gets the same pid at every start (1, or 7 behind --init): a temporary a
// killed save left under that pid must not look "alive" forever because this process has it.
describe("removeStaleTemporaries and this process's own pid", () => {
  let directory: string;
  let target: string;
  beforeEach(async () => {
    directory = await mkdtemp(path.join(tmpdir(), "atc-stale-own-pid-"));
    target = path.join(directory, "profile.toml");
  });
  afterEach(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  async function planted(name: string): Promise<string> {
    const file = path.join(directory, name);
    await writeFile(file, "half a save");
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(file, minuteAgo, minuteAgo);
    return file;
  }

  it("removes a temporary named with this pid that no save of this process is writing", async () => {
    await planted(`.profile.toml.${randomUUID()}.${process.pid}.tmp`);
    await planted(`.profile.toml.${randomUUID()}.4000000.tmp`);
    expect(await removeStaleTemporaries(target)).toBe(2);
    expect(await readdir(directory)).toEqual([]);
  });

  it("keeps this process's temporary while its save is in progress, and removes it once that save is over", async () => {
    const inProgress = temporaryFileName(target, randomUUID());
    await planted(path.basename(inProgress));
    expect(await removeStaleTemporaries(target)).toBe(0);
    expect(await readdir(directory)).toEqual([path.basename(inProgress)]);
    temporaryFileDone(inProgress);
    expect(await removeStaleTemporaries(target)).toBe(1);
  });
});
