/**
 * Red team round 33: a pack whose delta chain builds far more than any object it holds. A delta's
 * copy instruction costs a few bytes and copies up to 16 MiB of its base, so a chain of deltas that
 * each copy the whole of a 64 MiB base (a 64 KiB zlib bomb) rebuilds 64 MiB per link: 160 links,
 * about 70 KiB of pack, make one object read build 10 GiB, and the tip can be any small file. The
 * chain is applied synchronously, on the host's thread, so the call neither yields nor hears its
 * abort until it ends (on the old code: 300 links took 15.8 s of CPU; a 1 s abort timer fired at
 * 16.6 s with 60 links). Held when the read is refused `too_large` having built at most the bound
 * (`MAX_CHAIN_BYTES`, 2 GiB), its CPU within 3x of the control's. Control: a chain of the same shape
 * that builds 1.5 GiB (24 links) is read, and git gives the same file from the same pack. Second
 * attempt: the chain split over four packs of 24 links (1.5 GiB each, under the bound alone), each
 * pack's first link a ref delta whose base is the previous pack's last object, read nested through
 * the store: the bound counts the nested reads with their caller's (per chain, 6 GiB were built).
 */
import { rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { MAX_CHAIN_BYTES } from "../../src/git/objects/object-limits.js";
import { deltaChainRepository } from "../git/support/delta-chain-repository.js";
import { FixtureRepository, git, removeDirectory } from "../git/support/git-fixture.js";
import { gitRun } from "../git/support/git-run.js";
import {
  BLOB,
  blobId,
  copyAll,
  delta,
  type HostileEntry,
  insert,
  OFS_DELTA,
  REF_DELTA,
  writeHostilePack,
  zlibBomb,
} from "../git/support/hostile-pack.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const gitCapability = capability("git");

const MIB = 1024 * 1024;
/** The size every link of the chain rebuilds. */
const LINK_BYTES = 64 * MIB;
/** The file the chain ends in (its blob removed from the repository, so the pack is read for it). */
const TIP = `one\n${"t".repeat(200)}\n`;

/** A repository whose HEAD:a.txt is TIP, read from a chain of `links` links. */
const repository = (links: number): string => deltaChainRepository("escape-r33-delta", links, LINK_BYTES, TIP);

/**
 * The chain split over `packs` packs of `links` links each: the first entry of every pack after the
 * first is a ref delta whose base is the previous pack's last object, which the reader finds only
 * through the store, one pack's read nested in the next one's.
 */
function splitRepository(packs: number, links: number): string {
  const fixture = FixtureRepository.create("escape-r33-delta-split");
  fixture.write("a.txt", "one\n").commit("first", { name: "a", email: "a@b" });
  fixture.write("a.txt", TIP).commit("second", { name: "a", email: "a@b" });
  const id = blobId(TIP);
  rmSync(path.join(fixture.directory, ".git", "objects", id.slice(0, 2), id.slice(2)));
  const objects = path.join(fixture.directory, ".git", "objects");
  const linkOid = (pack: number, link: number) => `f${pack}${link.toString(16).padStart(38, "0")}`;
  for (let pack = 0; pack < packs; pack++) {
    const entries: HostileEntry[] =
      pack === 0
        ? [
            {
              oid: linkOid(0, 0),
              kind: BLOB,
              data: Buffer.alloc(0),
              claimedSize: LINK_BYTES,
              deflated: zlibBomb(Buffer.alloc(0), LINK_BYTES, 0),
            },
          ]
        : [
            {
              oid: linkOid(pack, 0),
              kind: REF_DELTA,
              data: delta(LINK_BYTES, LINK_BYTES, copyAll(LINK_BYTES)),
              baseOid: linkOid(pack - 1, links),
            },
          ];
    for (let link = 1; link <= links; link++) {
      entries.push({
        oid: linkOid(pack, link),
        kind: OFS_DELTA,
        data: delta(LINK_BYTES, LINK_BYTES, copyAll(LINK_BYTES)),
        base: link - 1,
      });
    }
    if (pack === packs - 1) {
      const body: number[] = [];
      for (let at = 0; at < TIP.length; at += 100) body.push(...insert(TIP.slice(at, at + 100)));
      entries.push({ oid: id, kind: OFS_DELTA, data: delta(LINK_BYTES, TIP.length, body), base: links });
    }
    writeHostilePack(objects, entries);
  }
  return fixture.directory;
}

/** One blame call's result and this process's CPU (user + system, all threads) for it. */
async function blame(directory: string): Promise<{ readonly code: string; readonly cpuMs: number }> {
  const cpu = process.cpuUsage();
  const result = await gitRun(directory).call("git_blame_context", { path: "a.txt", line: 2 });
  const used = process.cpuUsage(cpu);
  return { code: result.ok ? "ok" : result.error.code, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * The control's blame, read once per file and compared with by both attempts: it builds 1.5 GiB,
 * and what it gives is the same each time (the same pack, in the same process). Either attempt
 * run alone reads it itself. Stop 58, after that stop's pack-read fix (medians of 3 runs of this
 * file alone, load 12-16): the control 0.76 CPU-s (it was about 6), the 160-link attack 0.71 and
 * the split attack 0.89, both inside the bound (3x); the whole file 14.7 CPU-s (user + sys of
 * `vitest run`: the three reads 2.4 of it, the rest the fixtures' packs and vitest's start), 17 s
 * of test time.
 */
let controlRead: ReturnType<typeof blame> | undefined;
const controlBlame = (directory: string) => {
  controlRead ??= blame(directory);
  return controlRead;
};

describe.skipIf(gitCapability.missing)(
  gitCapability.label("escape attempts: round 33, delta chains that build gigabytes"),
  () => {
    const directories: string[] = [];
    beforeAll(() => {
      directories.push(repository(24), repository(160), splitRepository(4, 23));
    });
    afterAll(() => {
      for (const directory of directories) removeDirectory(directory);
    });

    escapeAttempt(
      "resources",
      "a 70 KiB pack whose 160-link delta chain rebuilds a 64 MiB base at every link (10 GiB) for a 205-byte file",
      async () => {
        const [honest, hostile] = directories as [string, string];
        expect(24 * LINK_BYTES).toBeLessThan(MAX_CHAIN_BYTES);
        // Control first: the same shape within the bound is read, and git reads the same file from it.
        const control = await controlBlame(honest);
        expect(control.code).toBe("ok");
        expect(git(honest, ["cat-file", "-p", "HEAD:a.txt"])).toBe(TIP);
        const attack = await blame(hostile);
        expect(attack.code).toBe("too_large");
        // The refusal comes once the bound is built: 2 GiB against the control's 1.5 GiB, not 10 GiB.
        expect(
          attack.cpuMs,
          `attack ${Math.round(attack.cpuMs)} ms, control ${Math.round(control.cpuMs)} ms of CPU`,
        ).toBeLessThan(3 * control.cpuMs);
      },
      600_000,
    );

    escapeAttempt(
      "resources",
      "the chain split over four packs, each pack's 24 links under the bound, the first a ref delta into the previous pack (6 GiB in all)",
      async () => {
        const [honest, , split] = directories as [string, string, string];
        const control = await controlBlame(honest);
        expect(control.code).toBe("ok");
        const attack = await blame(split);
        // Each pack's chain alone builds 1.5 GiB, under the bound: the nested reads count together.
        expect(attack.code).toBe("too_large");
        expect(
          attack.cpuMs,
          `attack ${Math.round(attack.cpuMs)} ms, control ${Math.round(control.cpuMs)} ms of CPU`,
        ).toBeLessThan(3 * control.cpuMs);
      },
      600_000,
    );
  },
);
