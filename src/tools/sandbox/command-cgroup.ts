import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RequestedLimits, ResourceLimitKind, ResourceLimitStatus } from "./resource-limits.js";

/**
 * Per-command cgroups (Linux). Each command gets a group of its own under one parent named for
 * the library, inside the host's own cgroup (so the host's own limits still cover it); the
 * launcher moves itself into the group before it execs bwrap, so nothing of the command ever runs
 * outside it. cgroup v2 is used for a controller it can delegate (a writable subtree with the
 * controller enabled or enableable), v1 otherwise (a writable hierarchy, as root).
 */

/** The parent group every command group lives under. */
export const CGROUP_PARENT_NAME = "agent-tool-catalog";

type Controller = "pids" | "memory";

/** Where one controller's command groups are made. */
interface ControllerHome {
  readonly controller: Controller;
  readonly version: 1 | 2;
  /** The host's own group in that hierarchy; the library parent is made inside it. */
  readonly hostGroup: string;
}

/** Where this host can place command groups: a home per controller it can use. */
export interface CgroupLayout {
  readonly homes: readonly ControllerHome[];
  /** Why a controller has no home, per controller. */
  readonly missing: Readonly<Partial<Record<Controller, string>>>;
}

let cachedLayout: CgroupLayout | undefined;

/** The cgroup layout of this host, found once per process (a real create and remove test). */
export function cgroupLayout(): CgroupLayout {
  cachedLayout ??= findLayout();
  return cachedLayout;
}

/** The limits a layout can enforce out of those requested, and why the rest cannot be. */
export function limitStatus(layout: CgroupLayout, requested: RequestedLimits): ResourceLimitStatus {
  const wanted: [Controller, number | undefined][] = [
    ["pids", requested.maxProcesses],
    ["memory", requested.maxMemoryBytes],
  ];
  const reasons: string[] = [];
  const versions = new Set<1 | 2>();
  for (const [controller, value] of wanted) {
    if (value === undefined) continue;
    const home = layout.homes.find((candidate) => candidate.controller === controller);
    if (home === undefined) reasons.push(`${controller}: ${layout.missing[controller] ?? "no usable cgroup"}`);
    else versions.add(home.version);
  }
  const has = (controller: Controller) => layout.homes.some((home) => home.controller === controller);
  const cgroup = versions.size === 0 ? undefined : versions.size === 2 ? "1+2" : versions.has(1) ? 1 : 2;
  return Object.freeze({
    enforced: reasons.length === 0,
    maxProcesses: has("pids") ? requested.maxProcesses : undefined,
    maxMemoryBytes: has("memory") ? requested.maxMemoryBytes : undefined,
    cgroup,
    ...(reasons.length === 0
      ? {}
      : {
          reason:
            `Resource limits are not enforced (${reasons.join("; ")}). They need a writable cgroup: ` +
            "cgroup v2 with the pids and memory controllers delegated to the host's group, or cgroup v1 " +
            "pids and memory hierarchies writable by the host (root).",
        }),
  });
}

function findLayout(): CgroupLayout {
  if (process.platform !== "linux") return { homes: [], missing: { pids: "not Linux", memory: "not Linux" } };
  const mounts = cgroupMounts();
  const membership = ownMembership();
  const homes: ControllerHome[] = [];
  const missing: Partial<Record<Controller, string>> = {};
  for (const controller of ["pids", "memory"] as const) {
    const v2 = mounts.v2 === undefined ? undefined : v2Home(controller, mounts.v2, membership.get(""));
    const v1Mount = mounts.v1.get(controller);
    const v1 = v2 !== undefined || v1Mount === undefined ? undefined : v1Home(controller, v1Mount, membership.get(controller));
    const home = v2 ?? v1;
    if (home !== undefined && typeof home !== "string") homes.push(home);
    else
      missing[controller] =
        typeof home === "string" ? home : `no cgroup hierarchy offers the ${controller} controller to this process`;
  }
  return { homes, missing };
}

/** cgroup mount points, from /proc/self/mountinfo. */
function cgroupMounts(): { v2: string | undefined; v1: Map<string, string> } {
  const v1 = new Map<string, string>();
  let v2: string | undefined;
  let text = "";
  try {
    text = readFileSync("/proc/self/mountinfo", "utf8");
  } catch {
    return { v2, v1 };
  }
  for (const line of text.split("\n")) {
    const [before, after] = line.split(" - ");
    if (before === undefined || after === undefined) continue;
    const mountPoint = unescapeMount(before.split(" ")[4] ?? "");
    const [type, , superOptions = ""] = after.split(" ");
    if (type === "cgroup2") v2 ??= mountPoint;
    else if (type === "cgroup") for (const option of superOptions.split(",")) if (!v1.has(option)) v1.set(option, mountPoint);
  }
  return { v2, v1 };
}

function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The host's own group per controller ("" for v2), from /proc/self/cgroup. */
function ownMembership(): Map<string, string> {
  const groups = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return groups;
  }
  for (const line of text.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (match === null) continue;
    for (const controller of (match[1] as string).split(",")) groups.set(controller, match[2] as string);
  }
  return groups;
}

function v2Home(controller: Controller, mount: string, own: string | undefined): ControllerHome | undefined {
  if (own === undefined) return undefined;
  const hostGroup = path.join(mount, own);
  const available = readWords(path.join(hostGroup, "cgroup.controllers"));
  if (!available.includes(controller)) return undefined;
  const home: ControllerHome = { controller, version: 2, hostGroup };
  return trial(home) === undefined ? home : undefined;
}

function v1Home(controller: Controller, mount: string, own: string | undefined): ControllerHome | string {
  const hostGroup = path.join(mount, own ?? "/");
  if (!existsSync(hostGroup)) return `the host's ${controller} group ${hostGroup} is not visible`;
  const home: ControllerHome = { controller, version: 1, hostGroup };
  const failure = trial(home);
  return failure === undefined ? home : `cannot create a group in ${hostGroup} (${failure})`;
}

/** Whether a command group can really be made, set and removed in `home`: why not, or `undefined`. */
function trial(home: ControllerHome): string | undefined {
  try {
    const parent = ensureParent(home);
    const group = path.join(parent, `${process.pid}-trial-${randomBytes(4).toString("hex")}`);
    try {
      mkdirSync(group);
      // "No limit" in the file's own syntax: v1 memory takes -1, the others "max".
      writeFileSync(path.join(group, limitFile(home)), home.version === 1 && home.controller === "memory" ? "-1" : "max");
      return undefined;
    } finally {
      removeGroup(group);
      removeIfEmpty(parent);
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? String(error);
  }
}

function limitFile(home: ControllerHome): string {
  if (home.controller === "pids") return "pids.max";
  return home.version === 2 ? "memory.max" : "memory.limit_in_bytes";
}

/** Makes the library's parent group (and delegates the controller to it on v2). */
function ensureParent(home: ControllerHome): string {
  const parent = path.join(home.hostGroup, CGROUP_PARENT_NAME);
  mkdirSync(parent, { recursive: true });
  if (home.version === 2) {
    const enable = `+${home.controller}`;
    if (!readWords(path.join(home.hostGroup, "cgroup.subtree_control")).includes(home.controller)) {
      // Fails (EBUSY) when the host's group holds processes itself; then v2 is not delegated to us.
      writeFileSync(path.join(home.hostGroup, "cgroup.subtree_control"), enable);
    }
    writeFileSync(path.join(parent, "cgroup.subtree_control"), enable);
  }
  return parent;
}

function readWords(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split(/\s+/);
  } catch {
    return [];
  }
}

let sequence = 0;
const reaped = new Set<string>();

/**
 * One command's cgroup: a directory per hierarchy it uses (one for v2, one per controller on v1),
 * made before the command starts and removed after it ended.
 */
export class CommandCgroup {
  /** The `cgroup.procs` files the launcher writes its pid to, one per hierarchy. */
  readonly procsFiles: readonly string[];
  private readonly groups: readonly { readonly directory: string; readonly home: ControllerHome }[];
  private removed = false;

  private constructor(groups: readonly { readonly directory: string; readonly home: ControllerHome }[]) {
    this.groups = groups;
    this.procsFiles = [...new Set(groups.map((group) => path.join(group.directory, "cgroup.procs")))];
  }

  /**
   * Makes the groups for one command with `limits` set. Undoes what it made when a step fails.
   * @throws the file system error of the step that failed.
   */
  static create(layout: CgroupLayout, limits: RequestedLimits): CommandCgroup | undefined {
    const name = `${process.pid}-${++sequence}-${randomBytes(3).toString("hex")}`;
    const made: { directory: string; home: ControllerHome }[] = [];
    try {
      for (const home of layout.homes) {
        const value = home.controller === "pids" ? limits.maxProcesses : limits.maxMemoryBytes;
        if (value === undefined) continue;
        // On v2 both controllers share one directory, made once; each controller is delegated
        // to the parent first, or the directory would lack its files.
        const shared = made.find((group) => group.home.version === 2 && home.version === 2);
        if (shared !== undefined) ensureParent(home);
        const directory = shared?.directory ?? makeGroup(home, name);
        made.push({ directory, home });
        setLimit(directory, home, value);
      }
    } catch (error) {
      new CommandCgroup(made).removeNow();
      throw error;
    }
    return made.length === 0 ? undefined : new CommandCgroup(made);
  }

  /** Signals every process in the groups once (host pids); how many it signalled. */
  killAll(): number {
    let signalled = 0;
    for (const group of this.groups) {
      if (group.home.version === 2 && existsSync(path.join(group.directory, "cgroup.kill"))) {
        try {
          writeFileSync(path.join(group.directory, "cgroup.kill"), "1");
        } catch {
          // Gone already.
        }
      }
    }
    for (const pid of this.members()) {
      try {
        process.kill(pid, "SIGKILL");
        signalled++;
      } catch {
        // Already gone.
      }
    }
    return signalled;
  }

  /** The limit the command ran into, if any (memory first: an OOM kill decides the outcome). */
  limitReached(): ResourceLimitKind | undefined {
    let processes = false;
    for (const group of this.groups) {
      if (group.home.controller === "memory") {
        const file = group.home.version === 2 ? "memory.events" : "memory.oom_control";
        if (counter(path.join(group.directory, file), "oom_kill") > 0) return "memory";
      } else if (counter(path.join(group.directory, "pids.events"), "max") > 0) processes = true;
    }
    return processes ? "processes" : undefined;
  }

  /**
   * Ends what is left in the groups and removes them: kills until empty (a process can fork while
   * it is being read), then removes the directories and the parent when no other command uses it.
   */
  async release(): Promise<void> {
    if (this.removed) return;
    const deadline = Date.now() + RELEASE_DEADLINE_MS;
    while (this.members().length > 0 && Date.now() < deadline) {
      this.killAll();
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    while (!this.removeNow() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Removes the groups now; false when one is still busy. */
  private removeNow(): boolean {
    let all = true;
    for (const { directory } of this.groups) {
      if (!removeGroup(directory)) all = false;
      else removeIfEmpty(path.dirname(directory));
    }
    this.removed = all;
    return all;
  }

  private members(): number[] {
    const pids = new Set<number>();
    for (const file of this.procsFiles) {
      let text = "";
      try {
        text = readFileSync(file, "utf8");
      } catch {
        continue;
      }
      for (const line of text.split("\n")) if (/^\d+$/.test(line)) pids.add(Number(line));
    }
    return [...pids];
  }
}

/** How long `release` keeps killing and retrying before it gives up on a group. */
const RELEASE_DEADLINE_MS = 5_000;

function makeGroup(home: ControllerHome, name: string): string {
  for (let attempt = 0; ; attempt++) {
    const parent = ensureParent(home);
    reapStale(parent);
    const directory = path.join(parent, name);
    try {
      mkdirSync(directory);
      return directory;
    } catch (error) {
      // Another host removed the (then empty) parent between the two steps: make it again.
      if (attempt < 3 && (error as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw error;
    }
  }
}

function setLimit(directory: string, home: ControllerHome, value: number): void {
  const text = String(value);
  if (home.controller === "pids") {
    writeFileSync(path.join(directory, "pids.max"), text);
    return;
  }
  if (home.version === 2) {
    writeFileSync(path.join(directory, "memory.max"), text);
    // No swapping past the limit, and an OOM ends the whole command rather than one random process.
    writeOptional(path.join(directory, "memory.swap.max"), "0");
    writeOptional(path.join(directory, "memory.oom.group"), "1");
    return;
  }
  writeFileSync(path.join(directory, "memory.limit_in_bytes"), text);
  // Memory plus swap, when the kernel accounts swap: the same bound, so swap is no way around it.
  writeOptional(path.join(directory, "memory.memsw.limit_in_bytes"), text);
}

function writeOptional(file: string, text: string): void {
  try {
    writeFileSync(file, text);
  } catch {
    // Not offered by this kernel (no swap accounting, an older kernel).
  }
}

/** Reads `name N` from a flat keyed cgroup file; 0 when absent. */
function counter(file: string, name: string): number {
  let text = "";
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return 0;
  }
  const match = new RegExp(`^${name} (\\d+)$`, "m").exec(text);
  return match === null ? 0 : Number(match[1]);
}

function removeGroup(directory: string): boolean {
  try {
    rmdirSync(directory);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

function removeIfEmpty(parent: string): void {
  // Fails while another command's group is inside: that command removes it later.
  removeGroup(parent);
}

/**
 * Removes, once per process and parent, the empty groups of hosts that died without removing
 * them (killed with -9): a group is named `<pid>-...` for the host that made it.
 */
function reapStale(parent: string): void {
  if (reaped.has(parent)) return;
  reaped.add(parent);
  let entries: string[];
  try {
    entries = readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return;
  }
  for (const entry of entries) {
    const owner = Number(/^(\d+)-/.exec(entry)?.[1]);
    if (!Number.isSafeInteger(owner) || owner === process.pid || isAlive(owner)) continue;
    // rmdir refuses a group that still has processes: only empty ones go.
    removeGroup(path.join(parent, entry));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** For tests: forget what was found and reaped, so the next use looks again. */
export function resetCgroupStateForTests(): void {
  cachedLayout = undefined;
  reaped.clear();
}
