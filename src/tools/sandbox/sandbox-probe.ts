import type { ProcessSandbox, SandboxedExit } from "./process-sandbox.js";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";

/**
 * Whether a sandbox could start a command here, and if not, why and how to fix it.
 *
 * @public
 */
export type SandboxProbeResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/**
 * Starts a trivial command in a sandbox to learn whether the sandbox works on this host.
 *
 * @public
 */
export type SandboxProbe = (sandbox: ProcessSandbox) => Promise<SandboxProbeResult>;

/** How long the probe waits for `true` to finish. */
export const PROBE_TIMEOUT_MS = 10_000;

const STDERR_LIMIT = 2_000;

/**
 * Runs `true` inside `sandbox`. Checking the binary's presence is not enough: user namespaces can
 * be disabled by sysctl, AppArmor or a container's seccomp profile, and only starting a real
 * sandbox shows that.
 * @public
 */
export async function probeProcessSandbox(sandbox: ProcessSandbox): Promise<SandboxProbeResult> {
  let exit: SandboxedExit;
  let stderr = "";
  try {
    const child = sandbox.spawn({
      command: "true",
      args: [],
      cwd: sandbox.workspace ?? "/",
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    child.stdout.resume();
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk: string) => {
      if (stderr.length < STDERR_LIMIT) stderr += chunk;
    });
    exit = await child.exited;
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return { ok: false, reason: error.message };
    throw error;
  }
  if (exit.error === undefined && exit.exitCode === 0) return { ok: true };
  return { ok: false, reason: explainProbeFailure(sandbox, exit, stderr.trim()) };
}

/**
 * Wraps a probe so that each sandbox configuration (kind, scope, executable) is probed once per
 * process. Only successes are kept: after a host fixes its setup, the next attempt probes again.
 */
export function cachedSandboxProbe(probe: SandboxProbe = probeProcessSandbox): SandboxProbe {
  const successes = new Set<string>();
  const pending = new Map<string, Promise<SandboxProbeResult>>();
  return async (sandbox) => {
    const key = probeKey(sandbox);
    if (successes.has(key)) return { ok: true };
    let result = pending.get(key);
    if (result === undefined) {
      result = probe(sandbox).finally(() => pending.delete(key));
      pending.set(key, result);
    }
    const outcome = await result;
    if (outcome.ok) successes.add(key);
    return outcome;
  };
}

function probeKey(sandbox: ProcessSandbox): string {
  const executable = "executable" in sandbox ? String(sandbox.executable) : "";
  return [sandbox.kind, sandbox.scope, executable].join("\0");
}

/** Turns a failed probe into a sentence that says what is wrong and what to run. */
export function explainProbeFailure(sandbox: ProcessSandbox, exit: SandboxedExit, stderr: string): string {
  const detail = stderr === "" ? "" : ` It said: ${JSON.stringify(stderr.slice(-500))}.`;
  const missing =
    (exit.error !== undefined && "code" in exit.error && exit.error.code === "ENOENT") ||
    (exit.exitCode === 127 && stderr.includes("sandbox launcher:") && stderr.includes("not found"));
  if (sandbox.kind === "sandbox-exec") {
    if (missing) return "sandbox-exec was not found at /usr/bin/sandbox-exec; it ships with macOS, so this system is unusual.";
    return `sandbox-exec could not start a test command (exit code ${String(exit.exitCode)}).${detail}`;
  }
  if (missing) {
    return (
      "bubblewrap (bwrap) is not installed or not on PATH. Install it: apt-get install -y bubblewrap " +
      "(Debian/Ubuntu), dnf install bubblewrap (Fedora), apk add bubblewrap (Alpine)."
    );
  }
  if (/namespace|uid map|unshare|Operation not permitted|Permission denied/i.test(stderr)) {
    return (
      `bubblewrap cannot create the namespaces it needs on this host.${detail} Enable unprivileged user namespaces: ` +
      "sysctl -w kernel.unprivileged_userns_clone=1 (Debian), sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 " +
      "or an AppArmor profile for bwrap (Ubuntu 23.10+), sysctl -w user.max_user_namespaces=15000 (when it is 0); " +
      "in a container, allow unshare (Docker: --security-opt seccomp=unconfined --security-opt apparmor=unconfined)."
    );
  }
  if (/seccomp/i.test(stderr)) {
    return `bubblewrap could not install its seccomp filter; the kernel needs CONFIG_SECCOMP_FILTER.${detail}`;
  }
  return `bubblewrap could not start a test command (exit code ${String(exit.exitCode)}, signal ${String(exit.signal)}).${detail}`;
}
