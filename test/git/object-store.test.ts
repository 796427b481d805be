import { createHash } from "node:crypto";
import * as nodeFs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { unconfinedReader } from "../../src/git/git-file-reader.js";
import { LruCache } from "../../src/git/lru-cache.js";
import { FilePool } from "../../src/git/objects/file-pool.js";
import { type GitObject, MissingObjectError, type ObjectStore } from "../../src/git/objects/git-object.js";
import { Inflater } from "../../src/git/objects/inflater.js";
import { IsomorphicObjectStore } from "../../src/git/objects/isomorphic-object-store.js";
import { NodeObjectStore, objectDirectories } from "../../src/git/objects/node-object-store.js";
import { PackFile, type PackReadOptions } from "../../src/git/objects/pack-file.js";
import { PackIndex } from "../../src/git/objects/pack-index.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";

const AUTHOR = { name: "Store Tester", email: "store@example.com" };
const cleanup: string[] = [];

let template: FixtureRepository;

/** A file edited 30 times, so packs hold long delta chains; plus a few other files. */
function buildTemplate(): FixtureRepository {
  const repository = FixtureRepository.create("store-template");
  cleanup.push(repository.directory);
  const lines = Array.from({ length: 300 }, (_, index) => `line ${index}: ${"x".repeat(index % 50)}`);
  for (let round = 0; round < 30; round++) {
    lines.splice((round * 37) % lines.length, 1, `edited in round ${round}`);
    repository.write("big.txt", `${lines.join("\n")}\n`).write(`notes/round-${round % 5}.md`, `round ${round}\n`);
    repository.commit(`round ${round}`, AUTHOR);
  }
  return repository;
}

/** A copy of the template, to repack without touching it. */
function buildRepository(prefix: string): FixtureRepository {
  const directory = path.join(temporaryDirectory(prefix), "repo");
  cleanup.push(path.dirname(directory));
  nodeFs.cpSync(template.directory, directory, { recursive: true });
  return new FixtureRepository(directory);
}

beforeAll(() => {
  template = buildTemplate();
});

function allObjects(directory: string): { oid: string; type: string; size: number }[] {
  return git(directory, ["cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)"])
    .trim()
    .split("\n")
    .map((line) => {
      const [oid = "", type = "", size = "0"] = line.split(" ");
      return { oid, type, size: Number(size) };
    });
}

const stores: [string, (gitdir: string) => ObjectStore][] = [
  [
    "NodeObjectStore",
    (gitdir) =>
      new NodeObjectStore(objectDirectories(path.join(gitdir, "objects"), unconfinedReader()), unconfinedReader(), {
        deltaBaseBytes: 64 * 1024,
      }),
  ],
  [
    "NodeObjectStore reading packs through small windows, three kept (their buffers reused)",
    (gitdir) =>
      new NodeObjectStore(objectDirectories(path.join(gitdir, "objects"), unconfinedReader()), unconfinedReader(), {
        deltaBaseBytes: 64 * 1024,
        packs: { windowBytes: 4096, keptBytes: 3 * 4096 },
      }),
  ],
  ["IsomorphicObjectStore", (gitdir) => new IsomorphicObjectStore(nodeFs, gitdir, {})],
];

const layouts: [string, (directory: string) => void][] = [
  ["loose objects", () => {}],
  ["one pack with offset deltas", (directory) => git(directory, ["gc", "-q", "--aggressive"])],
  [
    "one pack with ref deltas",
    (directory) => git(directory, ["-c", "repack.useDeltaBaseOffset=false", "repack", "-q", "-a", "-d", "-f"]),
  ],
  [
    "packs plus loose objects",
    (directory) => {
      git(directory, ["repack", "-q", "-a", "-d"]);
      new FixtureRepository(directory).write("late.txt", "written after the repack\n").commit("late", AUTHOR);
    },
  ],
];

afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

/**
 * Each layout's repository, made once (a copy of the template, then repacked) and read by every
 * store: the stores only read, and a copy and a repack per store cost three times the git runs.
 */
const laidOut = new Map<string, FixtureRepository>();
function layoutRepository(layout: string, prepare: (directory: string) => void): FixtureRepository {
  let repository = laidOut.get(layout);
  if (repository === undefined) {
    repository = buildRepository(layout.replaceAll(" ", "-"));
    prepare(repository.directory);
    laidOut.set(layout, repository);
  }
  return repository;
}

describe.each(stores)("%s", (_, createStore) => {
  describe.each(layouts)("with %s", (layout, prepare) => {
    let repository: FixtureRepository;
    let store: ObjectStore;
    beforeAll(() => {
      repository = layoutRepository(layout, prepare);
      store = createStore(path.join(repository.directory, ".git"));
    });
    afterAll(() => store.close());

    it("reads every object with the right type and content (its hash is its id)", async () => {
      const objects = allObjects(repository.directory);
      expect(objects.length).toBeGreaterThan(100);
      for (const expected of objects) {
        const object = await store.read(expected.oid);
        expect(object.type).toBe(expected.type);
        expect(object.content.length).toBe(expected.size);
        const hash = createHash("sha1")
          .update(`${object.type} ${object.content.length}\u0000`)
          .update(object.content)
          .digest("hex");
        expect(hash).toBe(expected.oid);
      }
    });

    it("expands short ids and reports missing objects", async () => {
      const [first] = allObjects(repository.directory);
      const prefix = first?.oid.slice(0, 6) ?? "";
      const expected = git(repository.directory, ["rev-parse", `--disambiguate=${prefix}`])
        .trim()
        .split("\n")
        .sort();
      expect([...(await store.expand(prefix))].sort()).toEqual(expected);
      await expect(store.read("0123456789012345678901234567890123456789")).rejects.toBeInstanceOf(MissingObjectError);
      expect(await store.expand("0123456789abcdef")).toEqual([]);
    });
  });
});

describe("PackFile windows", () => {
  /** Every object of a freshly packed copy of the template, read from its pack by offset in id order (random pack order). */
  function readWholePack(options: PackReadOptions) {
    const repository = buildRepository("windows");
    git(repository.directory, ["gc", "-q", "--aggressive"]);
    const packDirectory = path.join(repository.directory, ".git", "objects", "pack");
    const name = nodeFs.readdirSync(packDirectory).find((file) => file.endsWith(".idx")) ?? "";
    const index = PackIndex.parse(nodeFs.readFileSync(path.join(packDirectory, name)));
    const packPath = path.join(packDirectory, name.replace(/\.idx$/, ".pack"));
    const pack = new PackFile(
      packPath,
      index,
      new LruCache<number, GitObject>(64 * 1024, (object) => object.content.length),
      () => {
        throw new Error("no ref deltas here");
      },
      new FilePool(unconfinedReader()),
      new Inflater(),
      options,
    );
    const objects = allObjects(repository.directory);
    for (const expected of objects) {
      const offset = index.offsetOf(Buffer.from(expected.oid, "hex"));
      expect(offset).toBeDefined();
      const object = pack.readAt(offset as number);
      const hash = createHash("sha1")
        .update(`${object.type} ${object.content.length}\u0000`)
        .update(object.content)
        .digest("hex");
      expect(hash).toBe(expected.oid);
    }
    pack.close();
    return { pack, windows: Math.ceil(nodeFs.statSync(packPath).size / (options.windowBytes ?? 0)) };
  }

  it("keeps at most the kept bytes of windows, reusing the buffers of the least recently used", () => {
    const { pack, windows } = readWholePack({ windowBytes: 1024, keptBytes: 4 * 1024 });
    // Control: the pack spans more windows than are kept, and reading in id order comes back to evicted ones.
    expect(windows).toBeGreaterThan(4);
    expect(pack.reads).toBeGreaterThan(windows);
    expect(pack.windowBuffers).toBe(4);
  });

  it("keeps every window when the pack fits in the kept bytes (each read once)", () => {
    const { pack, windows } = readWholePack({ windowBytes: 1024, keptBytes: 1024 * 1024 });
    expect(windows).toBeGreaterThan(4);
    expect(pack.windowBuffers).toBeLessThanOrEqual(windows);
    expect(pack.reads).toBe(pack.windowBuffers);
  });
});

describe("NodeObjectStore across repository maintenance", () => {
  it("finds objects written and repacked after it listed the packs, and through alternates", async () => {
    const repository = buildRepository("maintenance");
    git(repository.directory, ["gc", "-q"]);
    const store = new NodeObjectStore(
      objectDirectories(path.join(repository.directory, ".git", "objects"), unconfinedReader()),
      unconfinedReader(),
    );
    await store.read(repository.head());
    expect(store.packedObjectCount()).toBe(allObjects(repository.directory).length);
    const late = repository.write("late.txt", "late\n").commit("late", AUTHOR);
    git(repository.directory, ["gc", "-q"]);
    expect((await store.read(late)).type).toBe("commit");
    store.close();

    const shared = path.join(temporaryDirectory("shared"), "clone");
    cleanup.push(path.dirname(shared));
    git(repository.directory, ["clone", "-q", "--shared", repository.directory, shared]);
    expect(nodeFs.existsSync(path.join(shared, ".git", "objects", "info", "alternates"))).toBe(true);
    const borrowing = new NodeObjectStore(
      objectDirectories(path.join(shared, ".git", "objects"), unconfinedReader()),
      unconfinedReader(),
    );
    expect((await borrowing.read(late)).type).toBe("commit");
    borrowing.close();
  });
});

describe("NodeObjectStore object memory", () => {
  it("gives every object, delta-built or whole, packed or loose, memory of its own size (no shared pool slab that a cache would keep whole)", async () => {
    const repository = buildRepository("own-memory");
    git(repository.directory, ["gc", "-q", "--aggressive"]);
    const loose = repository.write("loose.txt", "a small loose blob\n").commit("loose", AUTHOR);
    const store = new NodeObjectStore([path.join(repository.directory, ".git", "objects")], unconfinedReader());
    const objects = [...allObjects(repository.directory).map((object) => object.oid), loose];
    // Small objects are what node's allocator cuts from its shared 8 KiB slabs; the test needs them.
    let small = 0;
    for (const oid of objects) {
      const { content } = await store.read(oid);
      if (content.length < 2048) small++;
      // The object's bytes, plus at most a spare byte and a loose object's header.
      expect(content.buffer.byteLength - content.length, oid).toBeLessThanOrEqual(64);
    }
    expect(small).toBeGreaterThan(50);
    store.close();
  });
});

describe("NodeObjectStore transient reads", () => {
  it("gives every object's exact bytes, a packed whole commit in one reused scratch, a delta or loose object as readRawSync does", () => {
    const repository = buildRepository("transient");
    git(repository.directory, ["gc", "-q", "--aggressive"]);
    const loose = repository.write("loose.txt", "a loose blob, read by the transient path too\n").commit("loose", AUTHOR);
    const store = new NodeObjectStore([path.join(repository.directory, ".git", "objects")], unconfinedReader());
    const objects = [...allObjects(repository.directory), { oid: loose, type: "commit", size: 0 }];
    const raw = Buffer.alloc(20);
    const scratches = new Set<ArrayBufferLike>();
    let packedCommits = 0;
    for (const { oid, type } of objects) {
      raw.write(oid, "hex");
      const transient = store.readTransientRawSync(raw, 0);
      // Copied before the next read: the scratch is valid only until then.
      const bytes = Buffer.from(transient.content);
      const kept = store.readSync(oid);
      expect(transient.type, oid).toBe(kept.type);
      expect(bytes.equals(kept.content), oid).toBe(true);
      if (type === "commit" && oid !== loose) {
        packedCommits++;
        scratches.add(transient.content.buffer);
        // The kept read still has memory of its own.
        expect(kept.content.buffer).not.toBe(transient.content.buffer);
      }
    }
    // Thirty packed commits, all inflated into the one scratch of the pack.
    expect(packedCommits).toBe(30);
    expect(scratches.size).toBe(1);
    store.close();
  });
});

describe("PackIndex read bucket by bucket", () => {
  /** A pack index of a fresh copy of the template (version 1 or 2), with a file that counts what is read from it. */
  function packedIndex(version: 1 | 2) {
    const repository = buildRepository(`index-v${version}`);
    git(repository.directory, ["-c", `pack.indexVersion=${version}`, "repack", "-q", "-a", "-d"]);
    const packDirectory = path.join(repository.directory, ".git", "objects", "pack");
    const name = nodeFs.readdirSync(packDirectory).find((file) => file.endsWith(".idx")) ?? "";
    const bytes = nodeFs.readFileSync(path.join(packDirectory, name));
    const counts = { bytes: 0, reads: 0, closes: 0 };
    const file = (source: Buffer) => ({
      size: source.length,
      read(target: Buffer, offset: number, length: number, position: number) {
        counts.reads++;
        const copied = source.copy(target, offset, position, Math.min(source.length, position + length));
        counts.bytes += copied;
        return copied;
      },
      close() {
        counts.closes++;
      },
    });
    return { repository, bytes, counts, file };
  }

  const rawId = (oid: string) => Buffer.from(oid, "hex");

  for (const version of [1, 2] as const) {
    it(`finds every object where the whole version ${version} index does, reading only the buckets asked`, () => {
      const { repository, bytes, counts, file } = packedIndex(version);
      const whole = PackIndex.parse(bytes);
      const lazy = PackIndex.open(file(bytes));
      const oids = allObjects(repository.directory).map((object) => object.oid);
      expect(oids.length).toBeGreaterThan(60);
      // One lookup reads the header, the fan-out table and one bucket: far less than the file.
      const first = oids[0] as string;
      expect(lazy.offsetOf(rawId(first))).toBe(whole.offsetOf(rawId(first)));
      expect(lazy.offsetOf(rawId(first))).toBeGreaterThan(0);
      const oneBucket = oids.filter((oid) => oid.startsWith(first.slice(0, 2))).length;
      expect(counts.bytes).toBeLessThanOrEqual((version === 2 ? 8 : 0) + 256 * 4 + 8 + oneBucket * 28);
      for (const oid of oids) expect(lazy.offsetOf(rawId(oid))).toBe(whole.offsetOf(rawId(oid)));
      // Absent ids, in read and unread buckets alike.
      for (const head of ["00", "7f", "ff", first.slice(0, 2)]) {
        const absent = `${head}${"0123456789abcdef".repeat(3)}012345`;
        if (!oids.includes(absent)) expect(lazy.offsetOf(rawId(absent))).toBeUndefined();
      }
      expect(lazy.withPrefix(first.slice(0, 4))).toEqual(whole.withPrefix(first.slice(0, 4)));
      expect(lazy.withPrefix("")).toEqual(whole.withPrefix(""));
      // Every bucket read: the file was released, and lookups still answer from memory.
      expect(counts.closes).toBe(1);
      const reads = counts.reads;
      for (const oid of oids) expect(lazy.offsetOf(rawId(oid))).toBe(whole.offsetOf(rawId(oid)));
      expect(counts.reads).toBe(reads);
    });
  }

  for (const version of [1, 2] as const) {
    it(`reads the rest of a version ${version} index in two reads once a quarter of its buckets were read one by one`, () => {
      const { repository, bytes, counts, file } = packedIndex(version);
      const whole = PackIndex.parse(bytes);
      const lazy = PackIndex.open(file(bytes));
      const oids = allObjects(repository.directory).map((object) => object.oid);
      const buckets = new Set<string>();
      const perBucket = version === 2 ? 2 : 1;
      for (const oid of oids) {
        buckets.add(oid.slice(0, 2));
        expect(lazy.offsetOf(rawId(oid))).toBe(whole.offsetOf(rawId(oid)));
        if (buckets.size === 64) break;
      }
      expect(buckets.size).toBe(64);
      // The header, 64 buckets one by one, then all the ids and (version 2) all the offsets; the file released.
      expect(counts.reads).toBe(1 + 64 * perBucket + perBucket);
      expect(counts.closes).toBe(1);
      for (const oid of oids) expect(lazy.offsetOf(rawId(oid))).toBe(whole.offsetOf(rawId(oid)));
      expect(lazy.withPrefix("")).toEqual(whole.withPrefix(""));
      expect(counts.reads).toBe(1 + 64 * perBucket + perBucket);
    });
  }

  it("refuses a truncated index as corrupt, up front or when the missing bucket is asked for", () => {
    const { repository, bytes, file } = packedIndex(2);
    expect(() => PackIndex.open(file(bytes.subarray(0, 600)))).toThrow(/truncated or corrupt/);
    expect(() => PackIndex.open(file(bytes.subarray(0, bytes.length - 41)))).toThrow(/truncated or corrupt/);
    // The fan-out table is whole but the file ends early for what it announces: refused before any lookup.
    const shortened = Buffer.concat([bytes.subarray(0, bytes.length - 60), bytes.subarray(bytes.length - 40)]);
    expect(() => PackIndex.open(file(shortened))).toThrow(/truncated or corrupt/);
    // A file that shrinks after it was opened (a read comes back short) is refused at the lookup.
    const shrunk = {
      size: bytes.length,
      read: (target: Buffer, offset: number, length: number, position: number) =>
        position === 0 ? bytes.copy(target, offset, 0, length) : 0,
      close: () => {},
    };
    const index = PackIndex.open(shrunk);
    const oid = allObjects(repository.directory)[0]?.oid ?? "";
    expect(() => index.offsetOf(rawId(oid))).toThrow(/truncated or corrupt/);
  });

  it("NodeObjectStore reads one object without reading the whole index", async () => {
    const repository = buildRepository("index-store");
    git(repository.directory, ["repack", "-q", "-a", "-d"]);
    const packDirectory = path.join(repository.directory, ".git", "objects", "pack");
    const indexFile = nodeFs.readdirSync(packDirectory).find((file) => file.endsWith(".idx")) ?? "";
    const indexSize = nodeFs.statSync(path.join(packDirectory, indexFile)).size;
    const reader = unconfinedReader();
    let whole = 0;
    const counting = {
      root: reader.root,
      open: (file: string) => reader.open(file),
      list: (directory: string) => reader.list(directory),
      kind: (file: string) => reader.kind(file),
      identity: (file: string) => reader.identity(file),
      readFile: (file: string) => {
        if (file.endsWith(".idx")) whole++;
        return reader.readFile(file);
      },
    };
    const store = new NodeObjectStore(objectDirectories(path.join(repository.directory, ".git", "objects"), counting), counting);
    try {
      const head = git(repository.directory, ["rev-parse", "HEAD"]).trim();
      expect((await store.read(head)).type).toBe("commit");
      expect(whole).toBe(0);
      expect(indexSize).toBeGreaterThan(2000);
    } finally {
      store.close();
    }
  });
});
