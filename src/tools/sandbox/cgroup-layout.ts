import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { RequestedLimits, ResourceLimitStatus } from "./resource-limits.js";

// Where per-command cgroups can live on this host (Linux). Each command gets a group of its own
// under one parent named for the library, inside the host's own cgroup (so the host's own limits
// still cover it). cgroup v2 is used for a controller it can delegate (a writable subtree with the
// controller enabled or enableable), v1 otherwise (a writable hierarchy, as root). The layout is
// found once per process, with a real trial group made and removed.

/** The parent group every command group lives under. */
export const CGROUP_PARENT_NAME = "agent-tool-catalog";

/** The cgroup controllers the limits use. */
export type Controller = "pids" | "memory";

/** Where one controller's command groups are made. */
export interface ControllerHome {
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

export function limitFile(home: ControllerHome): string {
  if (home.controller === "pids") return "pids.max";
  return home.version === 2 ? "memory.max" : "memory.limit_in_bytes";
}

/** Makes the library's parent group (and delegates the controller to it on v2). */
export function ensureParent(home: ControllerHome): string {
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

export function readWords(file: string): string[] {
  try {
    return readFileSync(file, "utf8").trim().split(/\s+/);
  } catch {
    return [];
  }
}

export function removeGroup(directory: string): boolean {
  try {
    rmdirSync(directory);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

export function removeIfEmpty(parent: string): void {
  // Fails while another command's group is inside: that command removes it later.
  removeGroup(parent);
}

/** For tests: forget the layout found, so the next use looks again. */
export function resetCgroupLayoutForTests(): void {
  cachedLayout = undefined;
}
