/**
 * The descriptors a NodeObjectStore holds for packs, pack indexes and commit-graph files: bounded
 * with hundreds of packs (each `.pack` kept one for the store's life, each `.idx` until all 256 of
 * its buckets were read: EMFILE), a
 * file opened again after its descriptor was given up is refused when the name holds another file
 * now (a commit-graph is replaced by a rename), and a graph used after its store was closed
 * refuses to read instead of opening the path again.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFileSync, copyFileSync, readdirSync, readlinkSync, renameSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { NodeObjectStore, type NodeObjectStoreOptions, objectDirectories } from "../../src/git/objects/node-object-store.js";
import { capability } from "../support/capabilities.js";
import { FixtureRepository, git, removeDirectory } from "./support/git-fixture.js";
import { gitMallocEnvironment } from "./support/git-malloc.js";

const gitCapability = capability("git");
const PACKS = 300;
const COMMITS = 2 * PACKS;

/** A repository of {@link COMMITS} commits in {@link PACKS} packs (git fast-import writes one per checkpoint). */
function buildManyPacks(): FixtureRepository {
  const repository = FixtureRepository.create("many-packs");
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let stream = "";
  for (let commit = 0; commit < COMMITS; commit++) {
    stream += `commit refs/heads/main\ncommitter Pack Tester <packs@example.com> ${1_704_106_800 + commit * 60} +0000\n`;
    stream += `${data(`commit ${commit}`)}M 100644 inline file-${commit}.txt\n${data(`content ${commit}\n`)}\n`;
    if (commit % 2 === 1) stream += "checkpoint\n\n";
  }
  // Kept as packs however small (fast-import unpacks packs under 100 objects by default).
  execFileSync("git", ["-c", "fastimport.unpackLimit=1", "fast-import", "--quiet"], {
    cwd: repository.directory,
    input: stream,
    env: gitMallocEnvironment(),
  });
  git(repository.directory, ["symbolic-ref", "HEAD", "refs/heads/main"]);
  git(repository.directory, ["commit-graph", "write", "--reachable"]);
  return repository;
}

function openStore(directory: string, options: NodeObjectStoreOptions = {}): NodeObjectStore {
  const reader = unconfinedReader();
  return new NodeObjectStore(objectDirectories(path.join(directory, ".git", "objects"), reader), reader, options);
}

/** Descriptors this process holds on files whose names end with one of `suffixes` now. */
function openDescriptors(...suffixes: string[]): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (suffixes.some((suffix) => target.endsWith(suffix))) count++;
    } catch {
      // Closed between the listing and the read link (the listing's own descriptor).
    }
  }
  return count;
}

/** Runs `body` on a copy of `repository` (its `.git` as it is), removed afterwards. */
async function withCopy(
  repository: FixtureRepository,
  name: string,
  body: (copy: FixtureRepository) => Promise<void>,
): Promise<void> {
  const copy = FixtureRepository.create(name);
  try {
    execFileSync("cp", ["-a", `${repository.directory}/.git/.`, path.join(copy.directory, ".git")]);
    await body(copy);
  } finally {
    removeDirectory(copy.directory);
  }
}

/** Reading `oids` one by one, one read is refused because a file it opens again was replaced. */
async function expectReplacedRefused(store: NodeObjectStore, oids: readonly string[]): Promise<void> {
  let refused: unknown;
  for (const oid of oids) {
    try {
      await store.read(oid);
    } catch (error) {
      refused = error;
      break;
    }
  }
  expect(refused).toMatchObject({ code: "missing_object", message: expect.stringContaining("was replaced") });
}

function objectHash(type: string, content: Buffer): string {
  return createHash("sha1").update(`${type} ${content.length}\u0000`).update(content).digest("hex");
}

describe.skipIf(gitCapability.missing)(gitCapability.label("NodeObjectStore's index and graph descriptors"), () => {
  let repository: FixtureRepository;
  let commits: string[];
  let indexes: string[];
  beforeAll(() => {
    repository = buildManyPacks();
    commits = git(repository.directory, ["rev-list", "HEAD"]).trim().split("\n");
    indexes = readdirSync(path.join(repository.directory, ".git", "objects", "pack")).filter((name) => name.endsWith(".idx"));
  });
  afterAll(() => removeDirectory(repository.directory));

  it(`holds at most 64 pack and index descriptors over ${PACKS} packs, and reads every object right`, async () => {
    expect(indexes).toHaveLength(PACKS);
    const openIndexDescriptors = () => openDescriptors(".idx", ".pack");
    const before = openIndexDescriptors();
    const store = openStore(repository.directory);
    try {
      // Twice: the second pass opens again the indexes the first gave up.
      for (let pass = 0; pass < 2; pass++) {
        for (const oid of commits) {
          const commit = await store.read(oid);
          expect(objectHash(commit.type, commit.content)).toBe(oid);
          const tree = commit.content.toString("latin1").slice(5, 45);
          expect(objectHash("tree", (await store.read(tree)).content)).toBe(tree);
        }
        expect(openIndexDescriptors() - before).toBeLessThanOrEqual(64);
        expect(store.openFileCount).toBeLessThanOrEqual(64);
      }
    } finally {
      store.close();
    }
    expect(openIndexDescriptors()).toBe(before);

    // Control: with room for every file, the counts above see them all held at once, packs too.
    const packsBefore = openDescriptors(".pack");
    const roomy = openStore(repository.directory, { openFiles: 10_000 });
    try {
      for (const oid of commits) await roomy.read(oid);
      expect(openIndexDescriptors() - before).toBeGreaterThan(PACKS);
      expect(openDescriptors(".pack") - packsBefore).toBeGreaterThan(PACKS / 2);
    } finally {
      roomy.close();
    }
  }, 120_000);

  it("refuses an index replaced by another file after its descriptor was given up", async () => {
    await withCopy(repository, "many-packs-copy", async (copy) => {
      const packDirectory = path.join(copy.directory, ".git", "objects", "pack");
      // Control: with one descriptor for 300 indexes, every lookup opens indexes again, and that works.
      const control = openStore(copy.directory, { openFiles: 1 });
      try {
        for (const oid of commits.slice(0, 20)) expect((await control.read(oid)).type).toBe("commit");
      } finally {
        control.close();
      }
      const store = openStore(copy.directory, { openFiles: 1 });
      try {
        expect((await store.read(commits[0] as string)).type).toBe("commit");
        // Every index now has its header (and a bucket or so) read, and all but one gave its descriptor up.
        for (const name of indexes) {
          const file = path.join(packDirectory, name);
          const other = path.join(packDirectory, indexes[(indexes.indexOf(name) + 1) % indexes.length] as string);
          copyFileSync(other, `${file}.new`);
          renameSync(`${file}.new`, file);
        }
        // Ids of first bytes not looked up yet: some index must read a bucket from its (replaced) file.
        const unread = commits.filter((oid) => oid.slice(0, 2) !== commits[0]?.slice(0, 2)).slice(0, 20);
        await expectReplacedRefused(store, unread);
      } finally {
        store.close();
      }
    });
  }, 120_000);

  it("refuses a pack replaced by another file after its descriptor was given up", async () => {
    await withCopy(repository, "many-packs-pack-copy", async (copy) => {
      const packDirectory = path.join(copy.directory, ".git", "objects", "pack");
      const packs = indexes.map((name) => path.join(packDirectory, name.replace(/\.idx$/, ".pack")));
      // Control: with one descriptor for 300 packs and indexes, every read opens files again, and that works.
      // Windows of 64 bytes, one kept: reading an object again reads its pack again.
      const tiny = { openFiles: 1, packs: { windowBytes: 64, keptBytes: 64 } };
      const control = openStore(copy.directory, tiny);
      try {
        for (const pass of [0, 1])
          for (const oid of commits.slice(0, 20)) expect((await control.read(oid)).type, `pass ${pass}`).toBe("commit");
      } finally {
        control.close();
      }
      const store = openStore(copy.directory, tiny);
      try {
        // Every pack holding one of these commits is opened (then gives its descriptor up to the next file).
        const read = commits.slice(0, 40);
        for (const oid of read) expect((await store.read(oid)).type).toBe("commit");
        // Each pack replaced by a larger file (another pack with bytes appended): not the file read before.
        for (const [at, file] of packs.entries()) {
          copyFileSync(packs[(at + 1) % packs.length] as string, `${file}.new`);
          appendFileSync(`${file}.new`, Buffer.alloc(4096));
          renameSync(`${file}.new`, file);
        }
        await expectReplacedRefused(store, read);
      } finally {
        store.close();
      }
    });
  }, 120_000);

  it("a commit-graph used after its store was closed refuses to read", () => {
    const oldest = commits[commits.length - 1] as string;
    const newest = commits[0] as string;
    // Control: an open store's graph finds both ends of the history (pages read on demand).
    const open = openStore(repository.directory);
    try {
      const graph = open.commitGraph();
      expect(graph?.lookup(newest)).toBeDefined();
      expect(graph?.lookup(oldest)).toBeDefined();
    } finally {
      open.close();
    }
    const store = openStore(repository.directory);
    const graph = store.commitGraph();
    expect(graph?.lookup(newest)).toBeDefined();
    store.close();
    // The graph's pages of the other commits were never read: the closed store must not open the path again.
    expect(() => {
      for (const oid of commits) graph?.lookup(oid);
    }).toThrow(/after its object store was closed/);
  });
});
