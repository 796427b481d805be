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
  const [stdout, stderr, exit] = await Promise.all([collect(child.stdout, limit), collect(child.stderr, limit), child.exited]);
  return { ...exit, stdout: stdout.text, stderr: stderr.text, truncated: stdout.truncated || stderr.truncated };
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
