import { constants } from "node:fs";

/**
 * How {@link openConfined} opens a file: the usual `fs.open` letters, or numeric `O_*` flags.
 * `O_NOFOLLOW`, `O_NONBLOCK` and `O_NOCTTY` are always added.
 */
export type ConfinedOpenFlags = number | "r" | "r+" | "w" | "w+" | "wx" | "wx+" | "a" | "a+";

const { O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_EXCL, O_APPEND } = constants;

const LETTERS: Readonly<Record<Exclude<ConfinedOpenFlags, number>, number>> = {
  r: O_RDONLY,
  "r+": O_RDWR,
  w: O_WRONLY | O_CREAT | O_TRUNC,
  "w+": O_RDWR | O_CREAT | O_TRUNC,
  wx: O_WRONLY | O_CREAT | O_TRUNC | O_EXCL,
  "wx+": O_RDWR | O_CREAT | O_TRUNC | O_EXCL,
  a: O_WRONLY | O_CREAT | O_APPEND,
  "a+": O_RDWR | O_CREAT | O_APPEND,
};

/** The numeric form of `flags`; unknown letters are a programmer error. */
export function numericOpenFlags(flags: ConfinedOpenFlags): number {
  if (typeof flags === "number") return flags;
  const value = Object.hasOwn(LETTERS, flags) ? LETTERS[flags] : undefined;
  if (value === undefined) throw new TypeError(`Unknown open flags ${JSON.stringify(flags)}.`);
  return value;
}

/** True when the flags can change the file system (so the path is checked as a write). */
export function isWriteFlags(flags: number): boolean {
  return (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) !== 0;
}

/**
 * The flags to pass to `open(2)`. `O_TRUNC` is dropped here and applied only after the opened
 * file has been verified, so a lost race cannot empty a file outside the workspace.
 */
export function kernelOpenFlags(flags: number): number {
  const guard = (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);
  return (flags & ~O_TRUNC) | guard;
}

/** True when the caller asked for the file to be truncated. */
export function wantsTruncate(flags: number): boolean {
  return (flags & O_TRUNC) !== 0;
}

/** True when the open creates the file if it is missing. */
export function mayCreate(flags: number): boolean {
  return (flags & O_CREAT) !== 0;
}

/** True when the open must create the file (fails if it exists). */
export function mustCreate(flags: number): boolean {
  return (flags & O_CREAT) !== 0 && (flags & O_EXCL) !== 0;
}
