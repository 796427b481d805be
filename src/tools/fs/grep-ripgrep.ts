import path from "node:path";
import { createInterface } from "node:readline";
import type { ProcessSandbox } from "../sandbox/process-sandbox.js";

/** What grep asks either engine for. */
export interface GrepQuery {
  readonly pattern: string;
  readonly ignoreCase: boolean;
  readonly fixedStrings: boolean;
  readonly glob: string | undefined;
  readonly context: number;
  readonly limit: number;
  readonly filesOnly: boolean;
}

/** One printed line: a match (`path:n:text`) or a context line (`path-n-text`). */
export interface GrepLine {
  readonly absolute: string;
  readonly number: number;
  readonly text: string;
  readonly match: boolean;
}

/** An engine's answer: lines (or file names for `filesOnly`), and whether the limit cut it. */
export interface GrepAnswer {
  readonly lines: GrepLine[];
  readonly files: string[];
  readonly cut: boolean;
}

/** Thrown when ripgrep cannot answer this query (its regex syntax differs, or it cannot start). */
export class RipgrepUnusableError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "RipgrepUnusableError";
  }
}

/** Directories neither engine enters (their names anywhere below the start). */
export const GREP_SKIPPED_DIRECTORIES: readonly string[] = [".git", "node_modules", ".hg", ".svn"];

/** Files over this size are skipped by both engines. */
export const GREP_MAX_FILE_BYTES = 8 * 1024 * 1024;

/**
 * ripgrep's arguments for a query: JSON output (or NUL-separated file names), hidden files
 * searched, `.gitignore`/`.ignore` honoured even outside a git repository, no user config or
 * global ignore file (so the host's settings never change a model's answer), deterministic order.
 */
export function ripgrepArguments(query: GrepQuery, target: string | undefined): string[] {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--sort", "path", "--no-messages"];
  args.push("--max-filesize", String(GREP_MAX_FILE_BYTES));
  for (const name of GREP_SKIPPED_DIRECTORIES) args.push("--glob", `!${name}`);
  if (query.glob !== undefined) args.push("--glob", query.glob);
  if (query.ignoreCase) args.push("--ignore-case");
  if (query.fixedStrings) args.push("--fixed-strings");
  if (query.filesOnly) args.push("--files-with-matches", "--null");
  else {
    args.push("--json");
    if (query.context > 0) args.push("--context", String(query.context));
  }
  args.push("--regexp", query.pattern, "--");
  if (target !== undefined) args.push(target);
  return args;
}

interface RipgrepEvent {
  readonly type: string;
  readonly data?: {
    readonly path?: { readonly text?: string; readonly bytes?: string };
    readonly lines?: { readonly text?: string; readonly bytes?: string };
    readonly line_number?: number;
  };
}

/**
 * Runs ripgrep in `sandbox` (the run's own process sandbox, so it sees what `bash` would) with
 * `root` as its working directory, and reads its answer as a stream, stopping it at the limit.
 */
export async function searchWithRipgrep(
  sandbox: ProcessSandbox,
  executable: string,
  root: string,
  target: string | undefined,
  query: GrepQuery,
  signal: AbortSignal,
): Promise<GrepAnswer> {
  const stop = new AbortController();
  const child = sandbox.spawn({
    command: executable,
    args: ripgrepArguments(query, target),
    cwd: root,
    signal: AbortSignal.any([signal, stop.signal]),
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    if (stderr.length < 4000) stderr += chunk;
  });
  const toAbsolute = (text: string) => path.resolve(root, text);
  const { answer, cut } = query.filesOnly
    ? await readFileNames(child.stdout, query.limit, toAbsolute)
    : await readJsonLines(child.stdout, query.limit, toAbsolute);
  if (cut) {
    stop.abort();
    child.stdout.resume();
  }
  const exit = await child.exited;
  if (signal.aborted) throw signal.reason;
  if (cut) return { ...answer, cut: true };
  if (exit.error !== undefined || exit.exitCode === 127 || exit.exitCode === 126) {
    throw new RipgrepUnusableError(`ripgrep could not start: ${exit.error?.message ?? stderr.trim()}`);
  }
  if (exit.exitCode === 2 && /regex|parse error|look-around|backreference/i.test(stderr)) {
    throw new RipgrepUnusableError(`ripgrep does not accept this pattern: ${stderr.trim().slice(0, 500)}`);
  }
  if (exit.exitCode !== 0 && exit.exitCode !== 1 && exit.exitCode !== 2) {
    throw new RipgrepUnusableError(`ripgrep ended with ${String(exit.exitCode ?? exit.signal)}: ${stderr.trim().slice(0, 500)}`);
  }
  return answer;
}

/** Reads `--files-with-matches --null` output up to `limit` names. */
async function readFileNames(
  stdout: NodeJS.ReadableStream,
  limit: number,
  toAbsolute: (text: string) => string,
): Promise<{ answer: GrepAnswer; cut: boolean }> {
  const answer: GrepAnswer = { lines: [], files: [], cut: false };
  let pending = "";
  for await (const chunk of stdout) {
    pending += String(chunk);
    const parts = pending.split("\0");
    pending = parts.pop() ?? "";
    for (const part of parts) {
      if (answer.files.length >= limit) return { answer, cut: true };
      answer.files.push(toAbsolute(part));
    }
  }
  return { answer, cut: false };
}

/** Reads `--json` events (matches and context lines) up to `limit` matching lines. */
async function readJsonLines(
  stdout: NodeJS.ReadableStream,
  limit: number,
  toAbsolute: (text: string) => string,
): Promise<{ answer: GrepAnswer; cut: boolean }> {
  const answer: GrepAnswer = { lines: [], files: [], cut: false };
  let matches = 0;
  for await (const line of createInterface({ input: stdout, crlfDelay: Number.POSITIVE_INFINITY })) {
    const event = JSON.parse(line) as RipgrepEvent;
    if (event.type !== "match" && event.type !== "context") continue;
    const match = event.type === "match";
    if (match && ++matches > limit) return { answer, cut: true };
    const data = event.data;
    const text = decode(data?.lines).replace(/\n$/, "");
    answer.lines.push({ absolute: toAbsolute(decode(data?.path)), number: data?.line_number ?? 0, text, match });
  }
  return { answer, cut: false };
}

function decode(value: { readonly text?: string; readonly bytes?: string } | undefined): string {
  if (value?.text !== undefined) return value.text;
  if (value?.bytes !== undefined) return Buffer.from(value.bytes, "base64").toString("utf8");
  return "";
}
