import { readFileSync } from "node:fs";
import path from "node:path";
import { pathFromBytes } from "./byte-paths.js";
import { isInsideDirectory } from "./workspace-root.js";

/** One line of a `/proc/<pid>/mountinfo`. */
export interface MountEntry {
  /** Where it is mounted, as the reading process's root sees it. */
  readonly mountPoint: string;
  /** The path inside its file system that is mounted there (`/` for a whole new file system). */
  readonly root: string;
  /** The file system's device (`major:minor`). */
  readonly device: string;
  /** Mounted read-only. */
  readonly readOnly: boolean;
  /** The file system's type (`tmpfs`, `proc`, `ext4`, ...). */
  readonly type: string;
}

/**
 * Parses a mountinfo table given as its bytes, one character each (`latin1`, as
 * {@link readMountinfo} reads it). The kernel writes a path's bytes as they are except space,
 * tab, newline and backslash (`\040`, `\011`, `\012`, `\134`); both are undone into the path's
 * bytes, then decoded as the sandbox's host side names paths (`byte-paths.ts`: a byte that is not
 * part of valid UTF-8 kept as an escape), so that a path not valid UTF-8 compares equal to the
 * bwrap argument that mounted it.
 */
export function parseMountinfo(text: string): MountEntry[] {
  const entries: MountEntry[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const [head = "", tail = ""] = line.split(" - ");
    const fields = head.split(" ");
    const [device = "", root = "", mountPoint = "", options = ""] = fields.slice(2, 6);
    entries.push({
      mountPoint: unescapeField(mountPoint),
      root: unescapeField(root),
      device,
      readOnly: options.split(",").includes("ro"),
      type: tail.split(" ")[0] ?? "",
    });
  }
  return entries;
}

function unescapeField(field: string): string {
  const bytes = field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8) & 0xff));
  return pathFromBytes(Buffer.from(bytes, "latin1"));
}

/** What a workspace sandbox's mount table must be, from the arguments it was started with. */
export interface ExpectedMounts {
  /** The workspace: bound read-write onto itself. */
  readonly workspace: string;
  /** Host paths bound read-only onto themselves (system directories, `readOnlyPaths`, `/proc/sys`, `/proc/fs`). */
  readonly readOnlyIdentity: readonly string[];
  /** Workspace paths the git protection covers with an empty read-only tmpfs: each must be one, the topmost mount at its path. */
  readonly protectedTmpfs: readonly string[];
  /** Where the host's `/dev/null` is bound (masked files). */
  readonly nullBound: readonly string[];
  /** Workspace paths the git protection binds onto themselves: each must be a mount of its own content. */
  readonly protectedBinds: readonly string[];
  /** Those of {@link protectedBinds} bound read-only (`--ro-bind`): each must also be the topmost mount at its path, read-only. */
  readonly protectedReadOnly?: readonly string[];
  /**
   * Directories hidden under an empty read-only tmpfs (unreadable system directories, the masked
   * `/proc` ones): each must be the topmost mount at its path, a read-only tmpfs the sandbox made.
   */
  readonly maskedDirectories?: readonly string[];
  /** `readOnlyPaths` at or below the workspace: each must be the topmost mount at its path, read-only. */
  readonly readOnlyInWorkspace?: readonly string[];
}

/** The device nodes bwrap binds from the host's `/dev` into the sandbox's. */
const DEVICE_NODES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/console"];

/**
 * Why a workspace sandbox's mount table is not the one its arguments describe, or `undefined`.
 *
 * bwrap resolves every bind's source and destination by path while it sets the sandbox up, and
 * every path below the workspace can be changed meanwhile by another command of the same
 * workspace that is still running (a `monitor` process, a parallel `bash`): a directory the git
 * protection binds, swapped for a link between the host's scan and bwrap's mount, made bwrap bind
 * a host directory (`/tmp`, `/etc`, read-write for a git directory) into the new sandbox. So the
 * table is checked, before the command runs, against what the host meant: every mount is either a
 * file system the sandbox made (a device no host mount has), the host's `/dev/null` on a masked file, or a host path
 * bound onto the same path (same device and same path inside it as the host's own table says),
 * under the workspace or a directory bound read-only (read-only there); and every path the git
 * protection binds or covers with a tmpfs is such a mount.
 */
export function mountTableProblem(sandboxTable: string, hostTable: string, expected: ExpectedMounts): string | undefined {
  const host = parseMountinfo(hostTable);
  const nullSource = hostLocation(host, "/dev/null");
  const nullBound = new Set(expected.nullBound);
  const mounted = new Set<string>();
  // The table lists mounts in the order they were made: the last at a path is the one seen there.
  const topmost = new Map<string, MountEntry>();
  // A file system the sandbox made (its tmpfs, proc, devpts, and what bwrap binds within them,
  // such as its proc's own `/proc/irq`) has a device no host mount has: no host data is in it.
  const hostDevices = new Set(host.map((entry) => entry.device));
  for (const entry of parseMountinfo(sandboxTable)) {
    const where = entry.mountPoint;
    topmost.set(where, entry);
    if (!hostDevices.has(entry.device)) {
      mounted.add(where);
      continue;
    }
    if (nullBound.has(where)) {
      if (sameLocation(entry, nullSource)) continue;
      return `${where} is not the host's /dev/null`;
    }
    const identity = hostLocation(host, where);
    if (!sameLocation(entry, identity)) return `${where} holds another host path than its own (${entry.device} ${entry.root})`;
    const inWorkspace = isInsideDirectory(expected.workspace, where);
    const readOnlyRoot = expected.readOnlyIdentity.some((root) => isInsideDirectory(root, where));
    const device = DEVICE_NODES.includes(where);
    if (!inWorkspace && !readOnlyRoot && !device) return `${where} is a host path the sandbox does not bind`;
    if (!inWorkspace && !device && !entry.readOnly) return `${where} is writable`;
    mounted.add(where);
  }
  return missingMount(expected, mounted, topmost, hostDevices);
}

/** Which mount the arguments made is not in the sandbox's table as they meant it, or `undefined`. */
function missingMount(
  expected: ExpectedMounts,
  mounted: ReadonlySet<string>,
  topmost: ReadonlyMap<string, MountEntry>,
  hostDevices: ReadonlySet<string>,
): string | undefined {
  if (!mounted.has(expected.workspace)) return `${expected.workspace} is not mounted`;
  for (const bind of [...expected.protectedBinds, ...expected.protectedTmpfs])
    if (!mounted.has(bind)) return `${bind} is not protected`;
  for (const readOnly of expected.protectedReadOnly ?? []) {
    const top = topmost.get(readOnly);
    if (top === undefined || !top.readOnly) return `${readOnly} is not read-only`;
  }
  for (const directory of [...expected.protectedTmpfs, ...(expected.maskedDirectories ?? [])]) {
    const top = topmost.get(directory);
    if (top === undefined || top.type !== "tmpfs" || !top.readOnly || hostDevices.has(top.device))
      return `${directory} is not covered by an empty read-only tmpfs`;
  }
  for (const readOnly of expected.readOnlyInWorkspace ?? []) {
    const top = topmost.get(readOnly);
    if (top === undefined || !mounted.has(readOnly)) return `${readOnly} is not mounted`;
    if (!top.readOnly) return `${readOnly} is writable`;
  }
  return undefined;
}

interface Location {
  readonly device: string;
  readonly root: string;
}

function sameLocation(entry: MountEntry, location: Location | undefined): boolean {
  return location !== undefined && entry.device === location.device && entry.root === location.root;
}

/** Where host path `file` is: the device and path inside it of the host mount covering it (the last of the longest). */
function hostLocation(host: readonly MountEntry[], file: string): Location | undefined {
  let best: MountEntry | undefined;
  for (const entry of host) {
    if (!isInsideDirectory(entry.mountPoint, file)) continue;
    if (best === undefined || entry.mountPoint.length >= best.mountPoint.length) best = entry;
  }
  if (best === undefined) return undefined;
  const rest = path.relative(best.mountPoint, file);
  return { device: best.device, root: rest === "" ? best.root : path.posix.join(best.root, rest) };
}

/** The mount table of process `pid`, its bytes one character each (see {@link parseMountinfo}), or `undefined` when it cannot be read. */
export function readMountinfo(pid: number | "self"): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/mountinfo`, "latin1");
  } catch {
    return undefined;
  }
}
