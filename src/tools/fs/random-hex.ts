import { randomFillSync } from "node:crypto";

/** Random bytes drawn at once and handed out a few at a time: 512 eight-byte names per refill. */
const POOL_BYTES = 4096;
const pool = Buffer.alloc(POOL_BYTES);
/** Bytes of {@link pool} handed out already; a full pool is refilled before its next use. */
let used = POOL_BYTES;

/**
 * `byteCount` bytes from the system's cryptographic random generator, as lowercase hex: what
 * `randomBytes(byteCount).toString("hex")` gives, drawn from a pool filled in one call. Every call
 * of `randomBytes` asks OpenSSL's generator, which makes a `getpid` system call each time (its
 * check for a fork); a 500-file change names a temporary file per file, so one draw per name was
 * 400 system calls of nothing. Each byte is handed out once; node's `randomUUID` pools the same way.
 */
export function randomHex(byteCount: number): string {
  if (byteCount > POOL_BYTES) return randomFillSync(Buffer.alloc(byteCount)).toString("hex");
  if (used + byteCount > POOL_BYTES) {
    randomFillSync(pool);
    used = 0;
  }
  const hex = pool.toString("hex", used, used + byteCount);
  used += byteCount;
  return hex;
}
