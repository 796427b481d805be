import { checkNumberOption } from "../../errors/check-number-option.js";
import { byteCount } from "./byte-count.js";
import { OutputReading, readOutputToEnd } from "./output-reading.js";
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
   * given a mux client's descriptors), which is never ended. What the command wrote up to then
   * is all in `stdout` and `stderr`: reading stops only after the host has read the pipes dry.
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
  const stdout = new KeptOutput(limit, "stdout");
  const stderr = new KeptOutput(limit, "stderr");
  const readings = [
    new OutputReading(child.stdout, (chunk) => stdout.add(chunk)),
    new OutputReading(child.stderr, (chunk) => stderr.add(chunk)),
  ];
  const exit = await child.exited;
  // The exit comes once the command's processes are gone, so the pipes close at once, unless a
  // descendant escaped the group and the tag (unsandboxed: `setsid env -i sleep 1000 &`) and
  // holds them: it is looked for by the pipes it holds and ended, and reading never waits on it
  // past a short grace, so neither the timeout nor the call's end depends on that process. This
  // holds on a clean exit too: a leftover of the command ends with it like the rest of its group
  // (long-running processes belong in the monitor tool), but a process that was running before
  // the command and was handed the output is left alone; reading just stops, after everything
  // the command wrote up to then was read.
  const heldOpen = await readOutputToEnd(child, readings);
  const out = stdout.result();
  const err = stderr.result();
  return {
    ...exit,
    stdout: out.text,
    stderr: err.text,
    truncated: out.truncated || err.truncated,
    ...(heldOpen ? { outputHeldOpen: true } : {}),
  };
}

/**
 * A stream's output kept in bounded memory: the first and the last half of `limit` bytes, with a
 * marker between them saying how much was dropped. The end matters as much as the start (a
 * build's error, a test run's summary come last), and a reader that condenses the text to head
 * and tail again must find the real tail there, not the middle.
 */
class KeptOutput {
  private readonly headLimit: number;
  private readonly tailLimit: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private readonly tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;
  private readonly limit: number;
  private readonly name: string;

  constructor(limit: number, name: string) {
    this.limit = limit;
    this.name = name;
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = limit - this.headLimit;
  }

  add(chunk: Buffer): void {
    let buffer = chunk;
    this.total += buffer.length;
    if (this.headBytes < this.headLimit) {
      const taken = buffer.subarray(0, this.headLimit - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      buffer = buffer.subarray(taken.length);
    }
    if (buffer.length === 0 || this.tailLimit === 0) return;
    // The chunks themselves are kept, never copied: the oldest go once the rest still cover the
    // tail, so a gigabyte costs what reading it costs.
    this.tail.push(buffer);
    this.tailBytes += buffer.length;
    while (this.tail.length > 1 && this.tailBytes - (this.tail[0] as Buffer).length >= this.tailLimit) {
      this.tailBytes -= (this.tail.shift() as Buffer).length;
    }
  }

  result(): { text: string; truncated: boolean } {
    const headText = Buffer.concat(this.head);
    const tailJoined = Buffer.concat(this.tail);
    if (this.total <= this.limit) return { text: Buffer.concat([headText, tailJoined]).toString("utf8"), truncated: false };
    // Cut on character boundaries: the tail starts at the first byte that begins a character.
    let tailText = tailJoined.subarray(tailJoined.length - this.tailLimit);
    let skip = 0;
    while (skip < 3 && skip < tailText.length && ((tailText[skip] as number) & 0xc0) === 0x80) skip++;
    tailText = tailText.subarray(skip);
    const headKept = withoutPartialCharacter(headText);
    // The bytes of a character cut in two count as cut: the number is exactly what is not shown.
    const dropped = this.total - headKept.length - tailText.length;
    const marker = `\n[... ${byteCount(dropped)} of ${this.name} cut here ...]\n`;
    return { text: `${headKept.toString("utf8")}${marker}${tailText.toString("utf8")}`, truncated: true };
  }
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
