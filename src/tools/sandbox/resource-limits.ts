import { totalmem } from "node:os";
import { ConfigurationError } from "../../errors/configuration-error.js";

/**
 * Limits on what one sandboxed command may use, enforced per command with a cgroup of its own
 * (Linux, where the host can write a cgroup hierarchy). `false` turns one limit off.
 *
 * @public
 */
export interface ResourceLimits {
  /**
   * The most tasks the command may have at once, itself included. The kernel counts threads as
   * tasks (`pids.max`), so a program with many threads uses several. Past it, `fork` and
   * `clone` fail with `EAGAIN`: a fork bomb stalls instead of exhausting the host.
   * @defaultValue 1024
   */
  readonly maxProcesses?: number | false;
  /**
   * The most memory (bytes, page cache included, no swap beyond it) the command's processes may
   * use together. Past it, the kernel reclaims cache and then kills a process of the command (OOM).
   * @defaultValue half of the host's physical memory
   */
  readonly maxMemoryBytes?: number | false;
}

/**
 * A limit a command ran into: `"processes"` (a fork or thread creation was refused) or
 * `"memory"` (the kernel killed a process of the command for memory).
 *
 * @public
 */
export type ResourceLimitKind = "processes" | "memory";

/**
 * Which limits a sandbox really enforces on its commands, so a host can check before it relies
 * on them.
 *
 * @public
 */
export interface ResourceLimitStatus {
  /** True when every limit that was asked for is enforced (also when none was asked for). */
  readonly enforced: boolean;
  /** The enforced process limit per command, or `undefined` when there is none. */
  readonly maxProcesses: number | undefined;
  /** The enforced memory limit per command in bytes, or `undefined` when there is none. */
  readonly maxMemoryBytes: number | undefined;
  /** The cgroup version that enforces them: `1`, `2`, or `"1+2"` when split; `undefined` when none. */
  readonly cgroup: 1 | 2 | "1+2" | undefined;
  /** Why a requested limit is not enforced (what the host can change), when one is not. */
  readonly reason?: string;
}

/** The process limit when the host sets none: far above a build's needs, far below a fork bomb's. */
export const DEFAULT_MAX_PROCESSES = 1024;

/** The limits a host asked for, resolved: `undefined` means that limit is off. */
export interface RequestedLimits {
  readonly maxProcesses: number | undefined;
  readonly maxMemoryBytes: number | undefined;
}

/**
 * The memory limit when the host sets none: half the machine. One command using more is a
 * runaway in an agent's tool call; the other half keeps the host and its other runs alive.
 */
export function defaultMaxMemoryBytes(): number {
  const half = Math.floor(totalmem() / 2);
  return half - (half % (1024 * 1024));
}

/**
 * Resolves a host's `limits` option: defaults filled in, `false` turned into "off", and bad
 * numbers refused.
 * @throws ConfigurationError `invalid_sandbox_option` for a limit that is not a positive integer.
 */
export function requestedLimits(limits: ResourceLimits | false | undefined): RequestedLimits {
  if (limits === false) return { maxProcesses: undefined, maxMemoryBytes: undefined };
  const maxProcesses = resolve("maxProcesses", limits?.maxProcesses, DEFAULT_MAX_PROCESSES, 1);
  // Below a few MiB not even the launcher starts; refusing it here says so plainly.
  const maxMemoryBytes = resolve("maxMemoryBytes", limits?.maxMemoryBytes, defaultMaxMemoryBytes(), 4 * 1024 * 1024);
  return { maxProcesses, maxMemoryBytes };
}

function resolve(name: string, value: number | false | undefined, fallback: number, minimum: number): number | undefined {
  if (value === false) return undefined;
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new ConfigurationError(
      "invalid_sandbox_option",
      `limits.${name} must be an integer of at least ${minimum}, or false; got ${String(value)}.`,
    );
  }
  return value;
}

/** The status of a sandbox that enforces no limit (a platform or driver without cgroups). */
export function unenforcedLimits(requested: RequestedLimits, reason: string): ResourceLimitStatus {
  const asked = requested.maxProcesses !== undefined || requested.maxMemoryBytes !== undefined;
  return Object.freeze({
    enforced: !asked,
    maxProcesses: undefined,
    maxMemoryBytes: undefined,
    cgroup: undefined,
    ...(asked ? { reason } : {}),
  });
}
