import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { Minimatch } from "minimatch";
import { type IgnoreFile, isIgnored, parseIgnoreFile } from "./gitignore-rules.js";
import { GREP_MAX_FILE_BYTES, GREP_SKIPPED_DIRECTORIES, type GrepAnswer, type GrepLine, type GrepQuery } from "./grep-ripgrep.js";
import type { LineMatcher } from "./grep-worker.js";
import { looksBinary } from "./text-content.js";
import { listDirectory } from "./walk-directory.js";

/** Files matched per message to the worker. */
const BATCH = 64;

/** Ignore file names read in each directory, in increasing precedence (as ripgrep). */
const IGNORE_FILES = [".gitignore", ".ignore"];

/**
 * The JavaScript engine: the same walk as ripgrep (depth first, names in byte order, hidden files
 * included, `.gitignore`/`.ignore` honoured, symbolic links not followed, the same skipped
 * directories and size limit), files read through the run's file scope, and lines matched in a
 * worker thread by `matcher`.
 */
export async function searchWithJavaScript(options: {
  readonly root: string;
  readonly start: string;
  readonly startIsFile: boolean;
  readonly query: GrepQuery;
  readonly matcher: LineMatcher;
  readonly read: (absolute: string) => Promise<Buffer>;
  readonly signal: AbortSignal;
  /** The workspace's real path when the run is confined to it (directories are opened verified). */
  readonly confineTo?: string | undefined;
}): Promise<GrepAnswer> {
  const { root, start, query, matcher, signal } = options;
  const globFilter =
    query.glob === undefined ? undefined : new Minimatch(query.glob, { dot: true, matchBase: !query.glob.includes("/") });
  const answer: GrepAnswer = { lines: [], files: [], cut: false };
  let matches = 0;
  let batch: string[] = [];
  const flush = async (): Promise<boolean> => {
    const files = batch;
    batch = [];
    const texts = await Promise.all(files.map((file) => readText(options.read, file)));
    const found = await matcher.match(
      texts.map((text) => text ?? ""),
      signal,
    );
    for (const [index, lineIndices] of found.entries()) {
      if (lineIndices.length === 0) continue;
      const file = files[index] as string;
      if (query.filesOnly) {
        if (answer.files.length >= query.limit) return true;
        answer.files.push(file);
        continue;
      }
      for (const line of withContext(file, texts[index] as string, lineIndices, query.context)) {
        if (line.match && ++matches > query.limit) return true;
        answer.lines.push(line);
      }
    }
    return false;
  };
  const files = options.startIsFile ? single(start) : walk(root, start, signal, options.confineTo);
  for await (const file of files) {
    if (globFilter !== undefined && !options.startIsFile && !globFilter.match(toSlash(path.relative(root, file)))) continue;
    batch.push(file);
    if (batch.length >= BATCH && (await flush())) return { ...answer, cut: true };
  }
  if (batch.length > 0 && (await flush())) return { ...answer, cut: true };
  return answer;
}

async function* single(file: string): AsyncGenerator<string> {
  yield file;
}

async function readText(read: (absolute: string) => Promise<Buffer>, file: string): Promise<string | undefined> {
  const info = await lstat(file).catch(() => undefined);
  if (info === undefined || !info.isFile() || info.size > GREP_MAX_FILE_BYTES) return undefined;
  const bytes = await read(file).catch(() => undefined);
  if (bytes === undefined || looksBinary(bytes)) return undefined;
  return bytes.toString("utf8");
}

function withContext(file: string, text: string, matched: readonly number[], context: number): GrepLine[] {
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const keep = new Map<number, boolean>();
  for (const index of matched) {
    for (let near = Math.max(0, index - context); near <= Math.min(lines.length - 1, index + context); near++) {
      if (!keep.has(near)) keep.set(near, false);
    }
    keep.set(index, true);
  }
  return [...keep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, match]) => ({ absolute: file, number: index + 1, text: lines[index] as string, match }));
}

/** Depth-first, names in byte order (ripgrep's `--sort path`), honouring ignore files. */
async function* walk(root: string, start: string, signal: AbortSignal, confineTo: string | undefined): AsyncGenerator<string> {
  const inherited = await ignoreFilesAbove(root, start);
  yield* walkDirectory(root, start, inherited, signal, confineTo);
}

async function* walkDirectory(
  root: string,
  directory: string,
  ignores: readonly IgnoreFile[],
  signal: AbortSignal,
  confineTo: string | undefined,
): AsyncGenerator<string> {
  signal.throwIfAborted();
  const here = [...ignores, ...(await ignoreFilesIn(root, directory))];
  for (const listed of await listDirectory(directory, confineTo)) {
    const entry = { name: listed.name, directory: listed.kind === "directory", file: listed.kind === "file" };
    const absolute = path.join(directory, entry.name);
    const relative = toSlash(path.relative(root, absolute));
    if (entry.directory) {
      if (GREP_SKIPPED_DIRECTORIES.includes(entry.name) || isIgnored(here, relative, true)) continue;
      yield* walkDirectory(root, absolute, here, signal, confineTo);
    } else if (entry.file && !isIgnored(here, relative, false)) yield absolute;
  }
}

async function ignoreFilesIn(root: string, directory: string): Promise<IgnoreFile[]> {
  const base = toSlash(path.relative(root, directory));
  const found: IgnoreFile[] = [];
  for (const name of IGNORE_FILES) {
    const text = await readFile(path.join(directory, name), "utf8").catch(() => undefined);
    if (text !== undefined) found.push(parseIgnoreFile(base, text));
  }
  return found;
}

/** `.git/info/exclude` of the root, then the ignore files from the root down to `start`'s parent. */
async function ignoreFilesAbove(root: string, start: string): Promise<IgnoreFile[]> {
  const found: IgnoreFile[] = [];
  const exclude = await readFile(path.join(root, ".git", "info", "exclude"), "utf8").catch(() => undefined);
  if (exclude !== undefined) found.push(parseIgnoreFile("", exclude));
  const relative = path.relative(root, start);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return found;
  let current = root;
  for (const part of relative.split(path.sep).slice(0, -1)) {
    found.push(...(await ignoreFilesIn(root, current)));
    current = path.join(current, part);
  }
  found.push(...(await ignoreFilesIn(root, current)));
  return found;
}

function toSlash(relative: string): string {
  return relative.split(path.sep).join("/");
}
