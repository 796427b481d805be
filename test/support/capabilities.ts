/**
 * Optional machine capabilities some suites need (bubblewrap, ripgrep, ...). A suite that needs
 * one is skipped where it is missing, and its title carries a `[needs <name>]` tag so the
 * summary reporter (test/support/summary-reporter.ts) can print a loud summary of what was
 * skipped and how to enable it. With `AGENT_TOOL_CATALOG_REQUIRE_CAPABILITIES=1` (set by
 * `.ci/run`) a missing capability fails the suite instead of skipping it, so CI always runs them.
 *
 * @example
 * ```ts
 * const bubblewrap = capability("bubblewrap");
 * describe.skipIf(bubblewrap.missing)(bubblewrap.label("bash in the workspace sandbox"), () => { ... });
 * ```
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmdirSync } from "node:fs";
import path from "node:path";

/** The capabilities tests may need. */
export type CapabilityName = "bubblewrap" | "ripgrep" | "git" | "redis" | "cgroups" | "cgroup2" | "cc" | "root";

/**
 * Capabilities of the kernel or container rather than installable software: `.ci/run` cannot
 * provide them, so the strict flag leaves them as (loud) skips, like the platform and root checks.
 */
export const ENVIRONMENT_CAPABILITIES: ReadonlySet<CapabilityName> = new Set<CapabilityName>(["cgroups", "cgroup2"]);

/** Whether this machine has a capability, and how a test names its need for it. */
export interface Capability {
  readonly name: CapabilityName;
  /** True when the capability is missing (and the strict flag is off): skip. */
  readonly missing: boolean;
  /** Why it is missing, when it is. */
  readonly reason: string | undefined;
  /** `title` with the `[needs <name>]` tag the reporter looks for. */
  label(title: string): string;
}

/** The environment variable that turns every capability skip into a failure. */
export const REQUIRE_CAPABILITIES_VARIABLE = "AGENT_TOOL_CATALOG_REQUIRE_CAPABILITIES";

/** How to make each capability available (shown by the reporter). */
export const CAPABILITY_SETUP: Readonly<Record<CapabilityName, string>> = {
  bubblewrap:
    "install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap) on Linux with unprivileged user namespaces enabled",
  ripgrep: "install ripgrep (Debian/Ubuntu: apt-get install -y ripgrep)",
  git: "install git (Debian/Ubuntu: apt-get install -y git)",
  redis: "install redis-server (Debian/Ubuntu: apt-get install -y redis-server); the tests start their own on 127.0.0.1",
  cc: "install a C compiler (Debian/Ubuntu: apt-get install -y gcc); the escape suite compiles its system-call probes",
  root:
    "run the suite as root on Linux with util-linux's mount and prlimit (the fault tests mount small tmpfs file systems " +
    "and set other processes' open-file limits)",
  cgroup2:
    "run on Linux with a cgroup v2 hierarchy mounted (alone or beside v1, as /sys/fs/cgroup/unified) in which the test " +
    "user can make a group (a kernel/container property; the strict flag does not require it)",
  cgroups:
    "run on Linux with a cgroup the test user can write: cgroup v1 pids and memory hierarchies as root, or cgroup v2 " +
    "with pids and memory delegated to the test's own group (a kernel/container property; the strict flag does not require it)",
};

const probes: Record<CapabilityName, () => string | undefined> = {
  bubblewrap: () => {
    if (process.platform !== "linux") return "bubblewrap runs on Linux only";
    return runs("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"]);
  },
  ripgrep: () => runs("rg", ["--version"]),
  git: () => runs("git", ["--version"]),
  redis: () => runs("redis-server", ["--version"]),
  cgroups: () => writableCgroups(),
  cgroup2: () =>
    writableCgroup2Mount() === undefined ? "no cgroup v2 hierarchy in which this process can make a group" : undefined,
  cc: () => runs("cc", ["--version"]),
  root: () => {
    if (process.platform !== "linux") return "the fault tests' mounts and prlimit are Linux-only";
    if (process.getuid?.() !== 0) return `this process runs as uid ${process.getuid?.()}, not root`;
    return runs("prlimit", ["--pid", String(process.pid), "--nofile"]);
  },
};

const cache = new Map<CapabilityName, Capability>();

/** Probes a capability once per test process. */
export function capability(name: CapabilityName): Capability {
  const known = cache.get(name);
  if (known !== undefined) return known;
  const reason = probes[name]();
  if (reason !== undefined && process.env[REQUIRE_CAPABILITIES_VARIABLE] === "1" && !ENVIRONMENT_CAPABILITIES.has(name)) {
    throw new Error(`${REQUIRE_CAPABILITIES_VARIABLE}=1 and ${name} is not usable here (${reason}): ${CAPABILITY_SETUP[name]}.`);
  }
  const result: Capability = {
    name,
    missing: reason !== undefined,
    reason,
    label: (title) => `${title} [needs ${name}]`,
  };
  cache.set(name, result);
  return result;
}

function runs(command: string, args: readonly string[]): string | undefined {
  const result = spawnSync(command, args, { stdio: ["ignore", "ignore", "pipe"], timeout: 10_000 });
  if (result.error !== undefined) return `${command} could not start: ${result.error.message}`;
  if (result.status !== 0) {
    const stderr = result.stderr.toString().trim().split("\n")[0] ?? "";
    return `${command} exited with ${result.status ?? result.signal}${stderr === "" ? "" : `: ${stderr}`}`;
  }
  return undefined;
}

/**
 * The mount point of a cgroup v2 hierarchy (the only one, or the `unified` one of a hybrid host)
 * in which this process can make and remove a group, checked with a real mkdir and rmdir.
 */
export function writableCgroup2Mount(): string | undefined {
  if (process.platform !== "linux") return undefined;
  let mounts: string;
  try {
    mounts = readFileSync("/proc/self/mounts", "utf8");
  } catch {
    return undefined;
  }
  for (const line of mounts.split("\n")) {
    const [, mountPoint, type] = line.split(" ");
    if (type !== "cgroup2" || mountPoint === undefined) continue;
    const probe = path.join(mountPoint, `atc-capability-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      rmdirSync(probe);
      return mountPoint;
    } catch {}
  }
  return undefined;
}

/**
 * Whether this process can make a child group with the pids and memory controllers, checked on
 * its own (not with the library's detection, which the tests check): a real mkdir and rmdir in
 * the process's own group of each controller, v1 hierarchies first, then the v2 one.
 */
function writableCgroups(): string | undefined {
  if (process.platform !== "linux") return "cgroups are Linux-only";
  let membership: string;
  try {
    membership = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    return "/proc/self/cgroup is not readable";
  }
  const own = (controller: string) =>
    membership
      .split("\n")
      .map((line) => line.split(":"))
      .find((fields) => fields[1]?.split(",").includes(controller))?.[2];
  const v2 = membership
    .split("\n")
    .find((line) => line.startsWith("0::"))
    ?.slice(3);
  for (const controller of ["pids", "memory"]) {
    const v1Group = own(controller);
    let group: string | undefined;
    if (v1Group !== undefined && existsSync(`/sys/fs/cgroup/${controller}`))
      group = path.join(`/sys/fs/cgroup/${controller}`, v1Group);
    else if (v2 !== undefined) {
      const mount = existsSync("/sys/fs/cgroup/cgroup.controllers") ? "/sys/fs/cgroup" : "/sys/fs/cgroup/unified";
      const candidate = path.join(mount, v2);
      const controllers = existsSync(path.join(candidate, "cgroup.controllers"))
        ? readFileSync(path.join(candidate, "cgroup.controllers"), "utf8")
        : "";
      if (controllers.split(/\s+/).includes(controller)) group = candidate;
    }
    if (group === undefined) return `no cgroup hierarchy offers the ${controller} controller to this process`;
    const probe = path.join(group, `atc-capability-probe-${process.pid}`);
    try {
      mkdirSync(probe);
      rmdirSync(probe);
    } catch (error) {
      return `cannot create a ${controller} group in ${group} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    }
  }
  return undefined;
}
