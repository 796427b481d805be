import type { Readable } from "node:stream";
import type { ProcessSandbox, SandboxedCommand, SandboxedExit } from "./process-sandbox.js";

/**
 * Options of {@link runSandboxed}.
 *
 * @public
 */
export interface RunSandboxedOptions {
  /**
   * Bytes kept per stream; the rest is read and dropped so the process never stalls on a full pipe.
   * @defaultValue 1 MiB
   */
  readonly maxOutputBytes?: number;
}

/**
 * What a finished command printed and how it ended.
 *
 * @public
 */
export interface SandboxedResult extends SandboxedExit {
  /** stdout as UTF-8, cut at `maxOutputBytes`. */
  readonly stdout: string;
  /** stderr as UTF-8, cut at `maxOutputBytes`. */
  readonly stderr: string;
  /** True when a stream had more than `maxOutputBytes`. */
  readonly truncated: boolean;
  /**
   * True when the output was still held open after the command had exited and its processes
   * were ended (a descendant that escaped them, possible only unsandboxed): reading stopped
   * there instead of waiting for that process.
   */
  readonly outputHeldOpen?: boolean;
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Runs a command in a sandbox to completion and collects its output, with a bound on memory: the
 * common case for tools that show a command's result to a model.
 * @public
 */
export async function runSandboxed(
  sandbox: ProcessSandbox,
  command: SandboxedCommand,
  options: RunSandboxedOptions = {},
): Promise<SandboxedResult> {
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const child = sandbox.spawn(command);
  const outputs = Promise.all([collect(child.stdout, limit), collect(child.stderr, limit)]);
  const exit = await child.exited;
  // The exit comes once the command's processes are gone, so the pipes close at once, unless a
  // descendant escaped the group and the tag (unsandboxed: `setsid env -i sleep 1000 &`) and
  // holds them: it is looked for by the pipes it holds and ended, and reading never waits on it
  // past a short grace, so neither the timeout nor the call's end depends on that process.
  let heldOpen = !(await settlesWithin(outputs, HOLDER_GRACE_MS));
  if (heldOpen) {
    child.kill("SIGKILL");
    heldOpen = !(await settlesWithin(outputs, DRAIN_GRACE_MS));
    if (heldOpen) {
      child.stdout.destroy();
      child.stderr.destroy();
    }
  }
  const [stdout, stderr] = await outputs;
  return {
    ...exit,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: stdout.truncated || stderr.truncated,
    ...(heldOpen ? { outputHeldOpen: true } : {}),
  };
}

/** How long the output may stay open after the exit before the processes holding it are looked for. */
const HOLDER_GRACE_MS = 250;

/** How long reading goes on after that before it stops (a holder nobody could end). */
const DRAIN_GRACE_MS = 1_000;

/** True when `promise` settled within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

async function collect(stream: Readable, limit: number): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      const room = limit - kept;
      if (buffer.length > room) truncated = true;
      if (room > 0) {
        chunks.push(buffer.subarray(0, room));
        kept += Math.min(room, buffer.length);
      }
    }
  } catch {
    // A stream error (the process was killed) ends the output; the exit says what happened.
  }
  return { text: Buffer.concat(chunks).toString("utf8"), truncated };
}
