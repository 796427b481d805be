/**
 * Writes pack files and pack indexes byte by byte, so tests can plant what `git index-pack`
 * would never write (delta cycles, lying size headers, offsets past the end, a fan-out table that
 * is not monotonic) in a repository the real git CLI built.
 */
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { constants, deflateRawSync, deflateSync } from "node:zlib";

/** Pack entry types. */
export const BLOB = 3;
export const OFS_DELTA = 6;
export const REF_DELTA = 7;

/** One entry of a hand-written pack. */
export interface HostileEntry {
  /** The id the index gives this entry (not checked against the content: that is the point). */
  readonly oid: string;
  /** Pack entry type. */
  readonly kind: number;
  /** The (uncompressed) data: an object's content, or a delta's instructions. */
  readonly data: Buffer;
  /** The size the entry header claims; the data's length by default. */
  readonly claimedSize?: number;
  /** For OFS_DELTA: the index of the base entry in this pack, or `{ distance }` for a raw distance. */
  readonly base?: number | { readonly distance: number };
  /** For REF_DELTA: the base's id. */
  readonly baseOid?: string;
  /** The compressed bytes as they go in the pack (default: `deflateSync(data)`). */
  readonly deflated?: Buffer;
}

/** A git variable-length size (7 bits a byte, least significant first), as delta headers have. */
export function deltaSize(size: number): number[] {
  const bytes: number[] = [];
  let rest = size;
  do {
    let byte = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) byte |= 0x80;
    bytes.push(byte);
  } while (rest > 0);
  return bytes;
}

/** A delta: the two sizes, then `instructions` (raw bytes). */
export function delta(sourceSize: number, targetSize: number, instructions: readonly number[] | Buffer): Buffer {
  return Buffer.concat([Buffer.from([...deltaSize(sourceSize), ...deltaSize(targetSize)]), Buffer.from(instructions)]);
}

/** A copy instruction of `size` (1..0xffffff) bytes at `offset` (< 2^32) of the base. */
export function copy(offset: number, size: number): number[] {
  const out: number[] = [];
  let op = 0x80;
  for (let index = 0; index < 4; index++) {
    const byte = Math.floor(offset / 2 ** (8 * index)) & 0xff;
    if (byte !== 0) {
      op |= 1 << index;
      out.push(byte);
    }
  }
  for (let index = 0; index < 3; index++) {
    const byte = (size >> (8 * index)) & 0xff;
    if (byte !== 0) {
      op |= 0x10 << index;
      out.push(byte);
    }
  }
  return [op, ...out];
}

/** An insert instruction (1..127 bytes). */
export function insert(bytes: Buffer | string): number[] {
  const data = Buffer.from(bytes);
  return [data.length, ...data];
}

/** A pack entry's header: its type and size (4 bits, then 7 a byte, least significant first). */
export function entryHeader(kind: number, size: number): number[] {
  const bytes: number[] = [];
  let byte = (kind << 4) | (size % 16);
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    bytes.push(byte | 0x80);
    byte = rest % 128;
    rest = Math.floor(rest / 128);
  }
  bytes.push(byte);
  return bytes;
}

function ofsDistance(distance: number): number[] {
  let rest = distance;
  const bytes = [rest & 0x7f];
  rest = Math.floor(rest / 128);
  while (rest > 0) {
    rest -= 1;
    bytes.unshift(0x80 | (rest & 0x7f));
    rest = Math.floor(rest / 128);
  }
  return bytes;
}

/** The index of a pack: `offsets` by id; `fanout` overrides the table (a hostile one). */
export function packIndex(
  oids: readonly string[],
  offsets: readonly number[],
  packChecksum: Buffer,
  fanout?: readonly number[],
): Buffer {
  const order = oids.map((oid, index) => ({ oid, offset: offsets[index] as number })).sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const head = Buffer.alloc(8 + 256 * 4);
  head.writeUInt32BE(0xff744f63, 0);
  head.writeUInt32BE(2, 4);
  for (let byte = 0; byte < 256; byte++) {
    const count = order.filter((row) => Number.parseInt(row.oid.slice(0, 2), 16) <= byte).length;
    head.writeUInt32BE(fanout?.[byte] ?? count, 8 + byte * 4);
  }
  const names = Buffer.concat(order.map((row) => Buffer.from(row.oid, "hex")));
  const crcs = Buffer.alloc(order.length * 4);
  const table = Buffer.alloc(order.length * 4);
  for (const [index, row] of order.entries()) table.writeUInt32BE(row.offset, index * 4);
  const body = Buffer.concat([head, names, crcs, table, packChecksum]);
  return Buffer.concat([body, createHash("sha1").update(body).digest()]);
}

/** The 12 bytes a version 2 pack of `count` entries starts with. */
export function packHeader(count: number): Buffer {
  const header = Buffer.alloc(12);
  header.write("PACK", 0, "latin1");
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(count, 8);
  return header;
}

/** Writes `entries` as `pack-<name>.pack` and `.idx` into `objectsDirectory/pack`; returns each entry's offset. */
export function writeHostilePack(
  objectsDirectory: string,
  entries: readonly HostileEntry[],
  options: { readonly name?: string; readonly fanout?: readonly number[]; readonly indexOffsets?: readonly number[] } = {},
): number[] {
  const chunks: Buffer[] = [packHeader(entries.length)];
  let position = 12;
  const offsets: number[] = [];
  for (const entry of entries) {
    offsets.push(position);
    const bytes = [...entryHeader(entry.kind, entry.claimedSize ?? entry.data.length)];
    if (entry.kind === OFS_DELTA) {
      const base = entry.base ?? 0;
      const distance = typeof base === "number" ? position - (offsets[base] as number) : base.distance;
      bytes.push(...ofsDistance(distance));
    }
    const head = Buffer.from(bytes);
    const reference = entry.kind === REF_DELTA ? Buffer.from(entry.baseOid ?? "", "hex") : Buffer.alloc(0);
    const body = entry.deflated ?? deflateSync(entry.data);
    chunks.push(head, reference, body);
    position += head.length + reference.length + body.length;
  }
  const pack = Buffer.concat(chunks);
  const checksum = createHash("sha1").update(pack).digest();
  const name = options.name ?? checksum.toString("hex");
  const directory = path.join(objectsDirectory, "pack");
  mkdirSync(directory, { recursive: true });
  writeFileSync(path.join(directory, `pack-${name}.pack`), Buffer.concat([pack, checksum]));
  const indexOffsets = options.indexOffsets ?? offsets;
  writeFileSync(
    path.join(directory, `pack-${name}.idx`),
    packIndex(
      entries.map((entry) => entry.oid),
      indexOffsets,
      checksum,
      options.fanout,
    ),
  );
  return offsets;
}

/** The id git gives a blob of `content`. */
export function blobId(content: Buffer | string): string {
  const data = Buffer.from(content);
  return createHash("sha1").update(`blob ${data.length}\0`).update(data).digest("hex");
}

const ADLER = 65521n;

/**
 * A zlib stream of `prefix` then `size` bytes of `fill`, built without holding or deflating
 * `size` bytes: one 1 MiB chunk is deflated once with a full flush (which resets the window, so
 * its blocks stand alone) and repeated; the Adler-32 trailer is computed in closed form. `size`
 * must be a multiple of 1 MiB. A 400 MB bomb costs ~400 KB and a few milliseconds this way.
 */
export function zlibBomb(prefix: Buffer, size: number, fill: number): Buffer {
  const chunk = 1024 * 1024;
  if (size % chunk !== 0) throw new Error("size must be a multiple of 1 MiB");
  const flushed = { finishFlush: constants.Z_FULL_FLUSH };
  const head = deflateRawSync(prefix, flushed);
  const block = deflateRawSync(Buffer.alloc(chunk, fill), flushed);
  const end = deflateRawSync(Buffer.alloc(0));
  // Adler-32: A = 1 + sum of bytes, B = sum of the A after each byte (mod 65521).
  let a = 1n;
  let b = 0n;
  for (const byte of prefix) {
    a = (a + BigInt(byte)) % ADLER;
    b = (b + a) % ADLER;
  }
  const n = BigInt(size);
  const c = BigInt(fill);
  b = (b + n * a + c * ((n * (n + 1n)) / 2n)) % ADLER;
  a = (a + n * c) % ADLER;
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32BE(Number((b << 16n) | a));
  const blocks = Array.from({ length: size / chunk }, () => block);
  return Buffer.concat([Buffer.from([0x78, 0x9c]), head, ...blocks, end, trailer]);
}

/** Copy instructions for the whole of a `size`-byte base, 8 MiB each (a copy's largest is 16 MiB - 1). */
export function copyAll(size: number): number[] {
  const out: number[] = [];
  for (let at = 0; at < size; at += 8 * 1024 * 1024) out.push(...copy(at, Math.min(8 * 1024 * 1024, size - at)));
  return out;
}

/**
 * A delta chain that rebuilds `linkBytes` at every link: a base of `linkBytes` zeros (a zlib bomb,
 * a few KiB in the pack), `links` ofs deltas each copying all of the one before, then one that
 * inserts `tip`, the blob `blobId(tip)`. Reading the tip costs `links` rebuilds of `linkBytes`.
 */
export function amplifyingChain(links: number, linkBytes: number, tip: string): HostileEntry[] {
  const entries: HostileEntry[] = [
    {
      oid: "f0".padEnd(40, "0"),
      kind: BLOB,
      data: Buffer.alloc(0),
      claimedSize: linkBytes,
      deflated: zlibBomb(Buffer.alloc(0), linkBytes, 0),
    },
  ];
  for (let link = 1; link <= links; link++) {
    entries.push({
      oid: `f1${link.toString(16).padStart(38, "0")}`,
      kind: OFS_DELTA,
      data: delta(linkBytes, linkBytes, copyAll(linkBytes)),
      base: link - 1,
    });
  }
  const body: number[] = [];
  for (let at = 0; at < tip.length; at += 100) body.push(...insert(tip.slice(at, at + 100)));
  entries.push({ oid: blobId(tip), kind: OFS_DELTA, data: delta(linkBytes, tip.length, body), base: links });
  return entries;
}
