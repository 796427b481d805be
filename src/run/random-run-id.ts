import { nodeBuiltin } from "../tool/node-builtin.js";

// A run's id is made at `createRun`, before anything else in a new process needs randomness.
// `globalThis.crypto.randomUUID()` loads node's whole Web Crypto layer for it (about 24 million
// instructions, a tenth of what this package adds to a new process that calls one git tool);
// `node:crypto`'s own `randomUUID`, the same CSPRNG, about half of that: loading `node:crypto`
// alone took about 3 ms of CPU in an ES module process (stop 39), a tenth of a ms to read 16
// bytes from the kernel's random device, the source node's CSPRNG is seeded from. So where the
// device is there (Linux, macOS, the BSDs) the id's bytes come from it, through `node:fs` (loaded
// in every node process); elsewhere, or when it cannot be read, from `node:crypto`. Both are
// reached through `process.getBuiltinModule` so that the root entry still imports no `node:`
// module.

interface RandomUuidSource {
  randomUUID?: () => string;
}

interface DeviceReader {
  openSync(path: string, flags: string): number;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: null): number;
  closeSync(fd: number): void;
}

/** Bytes read ahead from the device, 16 per id, as node buffers its own (a host making many runs reads once per 32). */
const POOL_BYTES = 512;
let pool: Uint8Array | undefined;
let used = POOL_BYTES;

/** `pool` filled from `/dev/urandom`; false when there is no such device or it gave fewer bytes. */
function refill(): boolean {
  const fs = nodeBuiltin<DeviceReader>("node:fs");
  if (fs === undefined) return false;
  let fd: number | undefined;
  try {
    fd = fs.openSync("/dev/urandom", "r");
    const bytes = new Uint8Array(POOL_BYTES);
    for (let read = 0; read < bytes.length; ) {
      const got = fs.readSync(fd, bytes, read, bytes.length - read, null);
      if (got <= 0) return false;
      read += got;
    }
    pool = bytes;
    used = 0;
    return true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {
        // the bytes were read; a failed close leaks nothing a later open needs
      }
    }
  }
}

/** 16 bytes from the kernel's random device (each handed out once), or `undefined` without one. */
function deviceBytes(): Uint8Array | undefined {
  if ((pool === undefined || used >= POOL_BYTES) && !refill()) return undefined;
  const bytes = (pool as Uint8Array).slice(used, used + 16);
  // Handed out once: zeroed in the pool, so no later id can repeat them.
  (pool as Uint8Array).fill(0, used, used + 16);
  used += 16;
  return bytes;
}

/** `bytes` as a version 4 UUID (RFC 9562: version nibble 4, variant bits 10). */
export function uuidFromBytes(bytes: Uint8Array): string {
  const b = Uint8Array.from(bytes.subarray(0, 16));
  b[6] = ((b[6] as number) & 0x0f) | 0x40;
  b[8] = ((b[8] as number) & 0x3f) | 0x80;
  const hex = Array.from(b, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A new run id: a random (version 4) UUID from the kernel's random device, node's CSPRNG, or the platform's Web Crypto. */
export function randomRunId(): string {
  const bytes = deviceBytes();
  if (bytes !== undefined) return uuidFromBytes(bytes);
  const nodeCrypto = nodeBuiltin<RandomUuidSource>("node:crypto");
  return nodeCrypto?.randomUUID?.() ?? crypto.randomUUID();
}
