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

/** The capabilities tests may need. */
export type CapabilityName = "bubblewrap" | "ripgrep" | "git" | "redis";

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
};

const probes: Record<CapabilityName, () => string | undefined> = {
  bubblewrap: () => {
    if (process.platform !== "linux") return "bubblewrap runs on Linux only";
    return runs("bwrap", ["--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "--", "true"]);
  },
  ripgrep: () => runs("rg", ["--version"]),
  git: () => runs("git", ["--version"]),
  redis: () => runs("redis-server", ["--version"]),
};

const cache = new Map<CapabilityName, Capability>();

/** Probes a capability once per test process. */
export function capability(name: CapabilityName): Capability {
  const known = cache.get(name);
  if (known !== undefined) return known;
  const reason = probes[name]();
  if (reason !== undefined && process.env[REQUIRE_CAPABILITIES_VARIABLE] === "1") {
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
