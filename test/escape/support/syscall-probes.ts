/**
 * The escape suite's system-call probe program (`syscall-probes.c`), compiled once per source text
 * and user, then copied where an attempt runs it. Six files compiled it for themselves (nine
 * compiles a run, about 0.3 s of CPU each); the copy is the same program built with the same flags.
 * The cache lives in a directory of the temporary directory that only this user can write: one
 * that is not (or a cached file that is not this user's, or writable by others) is not trusted,
 * and the program is compiled straight to its destination instead.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomUUID } from "node:crypto";
import { chmodSync, copyFileSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/** The probe program's source. */
export const PROBES_SOURCE = path.join(import.meta.dirname, "syscall-probes.c");

const FLAGS = ["-O1"] as const;

/** True when `file` is this user's and nobody else can write it (a planted cache is not used). */
function ownedAndPrivate(file: string, kind: "file" | "directory"): boolean {
  try {
    const stat = lstatSync(file);
    const rightKind = kind === "file" ? stat.isFile() : stat.isDirectory();
    return rightKind && stat.uid === process.getuid?.() && (stat.mode & 0o022) === 0;
  } catch {
    return false;
  }
}

/** Puts the compiled probe program at `destination` (mode 0755), compiling it only when no trusted copy is cached. */
export function compileProbes(destination: string): void {
  const key = createHash("sha256").update(FLAGS.join(" ")).update("\0").update(readFileSync(PROBES_SOURCE)).digest("hex");
  const cacheDirectory = path.join(tmpdir(), `atc-syscall-probes-${process.getuid?.() ?? "user"}`);
  const cached = path.join(cacheDirectory, `probes-${key.slice(0, 16)}`);
  try {
    mkdirSync(cacheDirectory, { recursive: true, mode: 0o700 });
  } catch {}
  if (!ownedAndPrivate(cacheDirectory, "directory")) {
    execFileSync("cc", [...FLAGS, "-o", destination, PROBES_SOURCE], { stdio: "pipe" });
    return;
  }
  if (!ownedAndPrivate(cached, "file")) {
    // Compiled beside the cache entry and renamed over it: a file running side by side never
    // copies a half-written program.
    const temporary = `${cached}.${randomUUID()}.tmp`;
    try {
      execFileSync("cc", [...FLAGS, "-o", temporary, PROBES_SOURCE], { stdio: "pipe" });
      chmodSync(temporary, 0o755);
      renameSync(temporary, cached);
    } finally {
      rmSync(temporary, { force: true });
    }
  }
  copyFileSync(cached, destination);
  chmodSync(destination, 0o755);
}
