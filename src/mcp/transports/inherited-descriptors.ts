import { closeSync, openSync, readdirSync, readFileSync } from "node:fs";

/** `O_CLOEXEC` as `/proc/<pid>/fdinfo` shows it in `flags:` (octal, Linux on every architecture Node runs on). */
const O_CLOEXEC = 0o2000000;
/** A descriptor number past this is not covered (Node would build a stdio array that long). */
const MAX_COVERED_FD = 65_536;

/**
 * The descriptors of this process a child would inherit: numbers from 3 up that are open without
 * close-on-exec. Node opens every descriptor of its own with close-on-exec, but one the host
 * process inherited without it (a supervisor's socket, a log file a shell redirected, a pipe of a
 * CI runner) is passed to every process Node spawns: libuv closes nothing it is not told to.
 * Empty where `/proc/self/fdinfo` cannot be read (not Linux).
 */
export function inheritableDescriptors(): number[] {
  let names: string[];
  try {
    names = readdirSync("/proc/self/fdinfo");
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of names) {
    const fd = Number(name);
    if (!Number.isInteger(fd) || fd < 3 || fd > MAX_COVERED_FD) continue;
    let info: string;
    try {
      info = readFileSync(`/proc/self/fdinfo/${name}`, "latin1");
    } catch {
      continue; // closed since the listing (the listing's own descriptor, too)
    }
    const flags = /^flags:\s*([0-7]+)$/m.exec(info)?.[1];
    if (flags !== undefined && (Number.parseInt(flags, 8) & O_CLOEXEC) === 0) out.push(fd);
  }
  return out.sort((a, b) => a - b);
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
  const devNull = openSync("/dev/null", "r+");
  const covered = new Set(inherited);
  const last = inherited[inherited.length - 1] as number;
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
