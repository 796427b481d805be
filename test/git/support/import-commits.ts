import { spawnSync } from "node:child_process";
import type { Author } from "./git-fixture.js";
import { gitMallocEnvironment } from "./git-malloc.js";

/** One commit for {@link importCommits}: what it deletes (files or whole directories), then what it writes. */
export interface ImportedCommit {
  readonly message: string;
  readonly author: Author;
  readonly delete?: readonly string[];
  readonly write: Iterable<readonly [path: string, content: string]>;
}

/** `data` of fast-import: the exact byte count, then the bytes. */
const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;

/**
 * Commits `commits` onto the branch HEAD names in the repository at `directory` with one
 * `git fast-import` (one pack, no working-tree file written or hashed one by one: a commit of
 * thousands of files through `git add` costs seconds of CPU on a loaded machine), then checks
 * the last one out. Dated as `FixtureRepository.commit` dates: noon +0100 on 2024-01-02, then
 * one day later each. `loose`: every object is written loose, as `git commit` writes them, never a
 * pack (by default fast-import keeps a pack of 100 objects or more).
 */
export function importCommits(directory: string, commits: readonly ImportedCommit[], options: { loose?: boolean } = {}): void {
  const branch = spawnSync("git", ["symbolic-ref", "HEAD"], { cwd: directory, encoding: "utf8" }).stdout.trim();
  const chunks: string[] = [];
  for (const [index, commit] of commits.entries()) {
    const seconds = Date.UTC(2024, 0, 2 + index, 11) / 1000;
    const who = `${commit.author.name} <${commit.author.email}> ${seconds} +0100`;
    chunks.push(`commit ${branch}\nauthor ${who}\ncommitter ${who}\n${data(commit.message)}`);
    for (const removed of commit.delete ?? []) chunks.push(`D ${removed}\n`);
    for (const [file, content] of commit.write) chunks.push(`M 100644 inline ${file}\n${data(content)}`);
    chunks.push("\n");
  }
  const unpack = options.loose === true ? ["-c", "fastimport.unpackLimit=2147483647"] : [];
  for (const args of [
    [...unpack, "fast-import", "--quiet"],
    ["reset", "-q", "--hard"],
  ]) {
    const input = args.includes("fast-import") ? chunks.join("") : undefined;
    const env = input === undefined ? process.env : gitMallocEnvironment();
    const result = spawnSync("git", args, { cwd: directory, input, env, maxBuffer: 64 * 1024 * 1024 });
    if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr.toString()}`);
  }
}
