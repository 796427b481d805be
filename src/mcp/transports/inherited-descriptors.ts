import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` shows it in `flags:` (octal, Linux on every architecture Node runs on). */
const O_CLOEXEC = 0o2000000;
/** A descriptor number past this is not covered (Node would build a stdio array that long). */
const MAX_COVERED_FD = 65_536;
/**
 * Past this many open descriptors (3 up), their flags are not read one by one: each is covered
 * (see {@link inheritableDescriptors}). Reading `/proc/self/fdinfo/N` costs an open, a read and a
 * close per descriptor: 10,000 inherited ones took 230 ms of CPU per spawn (a plain spawn: 3 ms).
 */
const FLAGS_READ_UP_TO = 256;
/** Free numbers below the last covered one that are filled so that `/dev/null` opens above it. */
const MAX_GAPS_FILLED = 64;

/**
 * The descriptors of this process a child would inherit: numbers from 3 up that are open without
 * close-on-exec. Node opens every descriptor of its own with close-on-exec, but one the host
 * process inherited without it (a supervisor's socket, a log file a shell redirected, a pipe of a
 * CI runner) is passed to every process Node spawns: libuv closes nothing it is not told to.
 * `/proc/self/fd` is listed once; with more than 256 open, every one is taken as inheritable
 * (covering a close-on-exec one too only gives the child `/dev/null` at a number it would not
 * have had), so that the cost stays one listing however many a host inherited.
 * Empty where `/proc/self/fd` cannot be read (not Linux).
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fd");
  } catch {
    return [];
  }
  const open = names.map(Number).filter((fd) => Number.isInteger(fd) && fd >= 3 && fd <= MAX_COVERED_FD);
  // The listing's own descriptor is among them, closed by now: /dev/null over it in the child is harmless.
  if (open.length > FLAGS_READ_UP_TO) return open.sort((a, b) => a - b);
  const out: number[] = [];
  for (const fd of open) {
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${fd}`, "latin1");
    } catch {
      continue; // closed since the listing (the listing's own descriptor, too)
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
}

/**
 * Opens `/dev/null` at a number above `last` where at most {@link MAX_GAPS_FILLED} numbers below
 * it are free (each filled for the moment, then closed). libuv, in the child, first copies every
 * stdio source whose number is below its target (to a number past the array's length): a low
 * `/dev/null` under 10,000 targets made 10,000 copies, past a 20,000 open-file limit (EMFILE).
 */
function devNullAbove(last: number): number {
  const fillers: number[] = [];
  try {
    for (;;) {
      const fd = openSync("/dev/null", "r+");
      if (fd > last || fillers.length >= MAX_GAPS_FILLED) return fd;
      fillers.push(fd);
    }
  } finally {
    for (const fd of fillers) closeSync(fd);
  }
}

/**
 * A `stdio` array for `spawn` that gives the child `base` (its 0-2) and, at every inheritable
 * descriptor of this process ({@link inheritableDescriptors}), `/dev/null` instead (libuv `dup2`s
 * it over the number in the child, so the inherited one is gone before the program starts), with
 * `ignore` between (nothing is open there in the child). `release()` closes the host's `/dev/null`
 * once the child is spawned. Without inheritable descriptors: `base` as it is.
 */
export function stdioClosingInherited(base: readonly ["pipe", "pipe", "pipe"]): {
  readonly stdio: ("pipe" | "ignore" | number)[];
  readonly release: () => void;
} {
  const inherited = inheritableDescriptors();
  if (inherited.length === 0) return { stdio: [...base], release: () => undefined };
  const last = inherited[inherited.length - 1] as number;
  const devNull = devNullAbove(last);
  const covered = new Set(inherited);
  const stdio: ("pipe" | "ignore" | number)[] = [...base];
  for (let fd = 3; fd <= last; fd++) stdio.push(covered.has(fd) && fd !== devNull ? devNull : "ignore");
  let open = true;
  return {
    stdio,
    release: () => {
      if (open) closeSync(devNull);
      open = false;
    },
  };
}
