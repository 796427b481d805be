import { mkdtemp, realpath, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";

/**
 * Real temporary directories for one test file, removed after it. Paths are real paths, so tests
 * can compare them with what the sandbox reports.
 */
export class TemporaryDirectories {
  private readonly created: string[] = [];

  /** A new empty directory under the OS temp dir. */
  async make(prefix = "atc-sandbox-"): Promise<string> {
    const directory = await realpath(await mkdtemp(path.join(os.tmpdir(), prefix)));
    this.created.push(directory);
    return directory;
  }

  /** Removes every directory made so far. */
  async cleanup(): Promise<void> {
    const all = this.created.splice(0);
    await Promise.all(all.map((directory) => rm(directory, { recursive: true, force: true })));
  }
}
