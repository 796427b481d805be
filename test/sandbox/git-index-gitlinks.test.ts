/**
 * The index parser that finds gitlinks (the repositories host git enters from a protected one),
 * against indexes real git writes: versions 2, 3 (extended flags), 4 (prefix-compressed names),
 * a split index, SHA-256 object names.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  INDEX_READ_LIMITS,
  indexBudget,
  parseIndex,
  readIndexGitlinks,
  readIndexGitlinksWithin,
} from "../../src/tools/sandbox/git-index-gitlinks.js";
import { cachedGitlinks } from "../../src/tools/sandbox/git-protection.js";
import { capability } from "../support/capabilities.js";

const git = capability("git");

function run(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe.skipIf(git.missing)(git.label("git index gitlinks"), () => {
  const made: string[] = [];
  afterEach(() => {
    for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
  });

  /** A repository with files and two gitlinks (`lib/sub`, `deep/a/b/c/d/e/f/g`), made with `init` options. */
  function repository(...init: string[]): string {
    const root = mkdtempSync(path.join(tmpdir(), "atc-index-"));
    made.push(root);
    run(root, "init", "-q", ...init);
    for (const name of ["a.txt", "lib/one.txt", "lib/two.txt", "zz/long-name-for-prefix-compression.txt"]) {
      execFileSync("mkdir", ["-p", path.dirname(path.join(root, name))]);
      writeFileSync(path.join(root, name), `${name}\n`);
    }
    run(root, "add", ".");
    const commit = run(root, "commit-tree", run(root, "write-tree").trim(), "-m", "x").trim();
    for (const link of ["lib/sub", "deep/a/b/c/d/e/f/g"])
      run(root, "update-index", "--add", "--cacheinfo", `160000,${commit},${link}`);
    return root;
  }

  const expected = ["deep/a/b/c/d/e/f/g", "lib/sub"];

  it("version 2 (git's default)", () => {
    const root = repository();
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expected);
  });

  it("version 3: an intent-to-add entry has extended flags", () => {
    const root = repository();
    writeFileSync(path.join(root, "new.txt"), "n\n");
    run(root, "add", "-N", "new.txt");
    expect(readFileSync(path.join(root, ".git", "index")).readUInt32BE(4)).toBe(3);
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expected);
  });

  it("version 4: prefix-compressed names", () => {
    const root = repository();
    run(root, "update-index", "--index-version", "4");
    expect(readFileSync(path.join(root, ".git", "index")).readUInt32BE(4)).toBe(4);
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expected);
  });

  it("a split index: the gitlinks of the shared index are listed too", () => {
    const root = repository();
    run(root, "update-index", "--split-index");
    run(root, "update-index", "--add", "--cacheinfo", `160000,${run(root, "rev-parse", ":lib/sub").trim()},late`);
    const own = parseIndex(readFileSync(path.join(root, ".git", "index")));
    expect(own?.shared).toMatch(/^[0-9a-f]{40}$/);
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expect.arrayContaining([...expected, "late"]));
  });

  /** The repository's index with `extensions` appended before its checksum (recomputed, as git checks it). */
  function withExtensions(root: string, extensions: Buffer): Buffer {
    const index = readFileSync(path.join(root, ".git", "index"));
    const body = Buffer.concat([index.subarray(0, index.length - 20), extensions]);
    const indexed = Buffer.concat([body, createHash("sha1").update(body).digest()]);
    writeFileSync(path.join(root, ".git", "index"), indexed);
    return indexed;
  }

  /** What git says of the index: `ok`, or its refusal. */
  function gitReads(root: string): string {
    try {
      run(root, "ls-files", "--stage");
      return "ok";
    } catch (error) {
      return String((error as { stderr?: string }).stderr);
    }
  }

  it("an extension git must understand and does not (zeros, a made-up lowercase one): unreadable, as git refuses it", () => {
    // Round 19: a command's index of zeros after its header made the walk step 8 bytes at a time
    // through hundreds of MiB, on the host's thread, at every spawn. Git reads none of it.
    for (const signature of ["\0\0\0\0", "abcd"]) {
      const root = repository();
      const extension = Buffer.alloc(8 * 4);
      for (let at = 0; at < extension.length; at += 8) extension.write(signature, at, "latin1");
      const index = withExtensions(root, extension);
      expect(gitReads(root)).toMatch(/extension, which we do not understand/);
      expect(parseIndex(index)).toBeUndefined();
      expect(readIndexGitlinks(path.join(root, ".git"))).toBe("unreadable");
    }
    // Control: an unknown extension whose signature starts with A-Z is optional; git skips it, and so does the parser.
    const root = repository();
    const optional = Buffer.alloc(12);
    optional.write("ZZZZ", 0, "latin1");
    optional.writeUInt32BE(4, 4);
    withExtensions(root, optional);
    expect(gitReads(root)).toBe("ok");
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expected);
  });

  it("one budget across indexes: bytes and count charged per read, past it unreadable, never remembered so", () => {
    const root = repository();
    const gitDirectory = path.join(root, ".git");
    const size = statSync(path.join(gitDirectory, "index")).size;
    const budget = indexBudget();
    expect(budget).toEqual({ bytes: INDEX_READ_LIMITS.maxBytes, indexes: INDEX_READ_LIMITS.maxIndexes });
    expect(readIndexGitlinks(gitDirectory, budget)).toEqual(expected);
    expect(budget).toEqual({ bytes: INDEX_READ_LIMITS.maxBytes - size, indexes: INDEX_READ_LIMITS.maxIndexes - 1 });
    // Bytes left short of the index's size, or no index left: refused before reading, as unreadable.
    expect(readIndexGitlinksWithin(gitDirectory, { bytes: size - 1, indexes: 5 })).toBe("over budget");
    expect(readIndexGitlinks(gitDirectory, { bytes: size - 1, indexes: 5 })).toBe("unreadable");
    expect(readIndexGitlinksWithin(gitDirectory, { bytes: size, indexes: 0 })).toBe("over budget");
    expect(readIndexGitlinksWithin(gitDirectory, { bytes: size, indexes: 1 })).toEqual(expected);
    // An index over the per-index limit is unreadable in itself, whatever the budget.
    const large = repository();
    writeFileSync(path.join(large, ".git", "index"), "");
    truncateSync(path.join(large, ".git", "index"), INDEX_READ_LIMITS.maxIndexBytes + 1);
    expect(readIndexGitlinksWithin(path.join(large, ".git"), indexBudget())).toBe("unreadable");
    // The cache keeps what the file is, not what a spent budget left unread: a fresh budget reads it.
    const fresh = repository();
    const freshGit = path.join(fresh, ".git");
    expect(cachedGitlinks(freshGit, { bytes: 0, indexes: 1 })).toBe("unreadable");
    expect(cachedGitlinks(freshGit, indexBudget())).toEqual(expected);
  });

  it("SHA-256 object names", () => {
    const root = repository("--object-format=sha256");
    expect(readIndexGitlinks(path.join(root, ".git"))).toEqual(expected);
  });

  it("no index, an index that is a named pipe or a link, or garbage: absent, unreadable", () => {
    const root = repository();
    const gitDirectory = path.join(root, ".git");
    rmSync(path.join(gitDirectory, "index"));
    expect(readIndexGitlinks(gitDirectory)).toBe("absent");
    execFileSync("mkfifo", [path.join(gitDirectory, "index")]);
    expect(readIndexGitlinks(gitDirectory)).toBe("unreadable");
    rmSync(path.join(gitDirectory, "index"));
    writeFileSync(path.join(gitDirectory, "index"), "DIRC garbage");
    expect(readIndexGitlinks(gitDirectory)).toBe("unreadable");
  });
});
