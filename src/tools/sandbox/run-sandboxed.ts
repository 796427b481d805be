import type { Readable } from "node:stream";
import { checkNumberOption } from "../../errors/check-number-option.js";
import { byteCount } from "./byte-count.js";
import type { ProcessSandbox, SandboxedCommand, SandboxedExit } from "./process-sandbox.js";

/**
 * Options of {@link runSandboxed}.
 *
 * @public
 */
export interface RunSandboxedOptions {
  /**
   * Bytes kept per stream, half from its start and half from its end; the rest is read and
   * dropped so the process never stalls on a full pipe. A whole number at least 0 (0 keeps
   * nothing but the count of bytes cut), or `Infinity` to keep everything; anything else (`NaN`
   * kept every byte in memory, a negative number only the last chunk) fails with `invalid_option`.
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
  /**
   * stdout as UTF-8; over `maxOutputBytes`, its first and last halves with a line between them
   * saying how many bytes were cut.
   */
  readonly stdout: string;
  /** stderr as UTF-8, cut as stdout is. */
  readonly stderr: string;
  /** True when a stream had more than `maxOutputBytes`. */
  readonly truncated: boolean;
  /**
   * True when the output was still held open after the command had exited and its processes
   * were ended: reading stopped there instead of waiting for that process. Possible only
   * unsandboxed: a descendant that escaped them and hid the output where it cannot be found, or a
   * process that was running before the command and received its output (an ssh ControlMaster
   * given a mux client's descriptors), which is never ended.
   */
  readonly outputHeldOpen?: boolean;
}

const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

/**
 * Checks a `maxOutputBytes` option (of `runSandboxed` and the tools that pass it on).
 * @throws ConfigurationError `invalid_option` naming `maxOutputBytes`.
 */
export function checkOutputLimit(value: number | undefined, where: string): number | undefined {
  return checkNumberOption(value, "maxOutputBytes", { min: 0, integer: true, infinite: true }, where);
}

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
  const limit = checkOutputLimit(options.maxOutputBytes, "runSandboxed") ?? DEFAULT_MAX_OUTPUT_BYTES;
  const child = sandbox.spawn(command);
  const outputs = Promise.all([collect(child.stdout, limit, "stdout"), collect(child.stderr, limit, "stderr")]);
  const exit = await child.exited;
  // The exit comes once the command's processes are gone, so the pipes close at once, unless a
  // descendant escaped the group and the tag (unsandboxed: `setsid env -i sleep 1000 &`) and
  // holds them: it is looked for by the pipes it holds and ended, and reading never waits on it
  // past a short grace, so neither the timeout nor the call's end depends on that process. This
  // holds on a clean exit too: a leftover of the command ends with it like the rest of its group
  // (long-running processes belong in the monitor tool), but a process that was running before
  // the command and was handed the output is left alone; reading just stops.
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

/**
 * Reads a stream to its end in bounded memory: the first and the last half of `limit` bytes are
 * kept, with a marker between them saying how much was dropped. The end matters as much as the
 * start (a build's error, a test run's summary come last), and a reader that condenses the text
 * to head and tail again must find the real tail there, not the middle.
 */
async function collect(stream: Readable, limit: number, name: string): Promise<{ text: string; truncated: boolean }> {
  const headLimit = Math.ceil(limit / 2);
  const tailLimit = limit - headLimit;
  const head: Buffer[] = [];
  let headBytes = 0;
  const tail: Buffer[] = [];
  let tailBytes = 0;
  let total = 0;
  try {
    for await (const chunk of stream) {
      let buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      total += buffer.length;
      if (headBytes < headLimit) {
        const taken = buffer.subarray(0, headLimit - headBytes);
        head.push(taken);
        headBytes += taken.length;
        buffer = buffer.subarray(taken.length);
      }
      if (buffer.length === 0 || tailLimit === 0) continue;
      // The chunks themselves are kept, never copied: the oldest go once the rest still cover
      // the tail, so a gigabyte costs what reading it costs.
      tail.push(buffer);
      tailBytes += buffer.length;
      while (tail.length > 1 && tailBytes - (tail[0] as Buffer).length >= tailLimit) {
        tailBytes -= (tail.shift() as Buffer).length;
      }
    }
  } catch {
    // A stream error (the process was killed) ends the output; the exit says what happened.
  }
  const headText = Buffer.concat(head);
  const tailJoined = Buffer.concat(tail);
  if (total <= limit) return { text: Buffer.concat([headText, tailJoined]).toString("utf8"), truncated: false };
  // Cut on character boundaries: the tail starts at the first byte that begins a character.
  let tailText = tailJoined.subarray(tailJoined.length - tailLimit);
  let skip = 0;
  while (skip < 3 && skip < tailText.length && ((tailText[skip] as number) & 0xc0) === 0x80) skip++;
  tailText = tailText.subarray(skip);
  const headKept = withoutPartialCharacter(headText);
  // The bytes of a character cut in two count as cut: the number is exactly what is not shown.
  const dropped = total - headKept.length - tailText.length;
  const marker = `\n[... ${byteCount(dropped)} of ${name} cut here ...]\n`;
  return { text: `${headKept.toString("utf8")}${marker}${tailText.toString("utf8")}`, truncated: true };
}

/** `bytes` without a character its end cuts in two. */
function withoutPartialCharacter(bytes: Buffer): Buffer {
  let end = bytes.length;
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && ((bytes[end - back - 1] as number) & 0xc0) === 0x80) back++;
  const lead = end - back - 1 >= 0 ? (bytes[end - back - 1] as number) : 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (length > back + 1) end = end - back - 1;
  return bytes.subarray(0, end);
}
