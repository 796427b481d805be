import { stat } from "node:fs/promises";
import { type AnyToolDefinition, defineTool, ToolError } from "agent-tool-catalog";
import { Minimatch } from "minimatch";
import { z } from "zod";
import type { FileToolOptions } from "./file-tool-options.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { looksBinary, splitLines } from "./text-content.js";
import { DEFAULT_SKIPPED_DIRECTORIES, walkDirectory } from "./walk-directory.js";

const MAX_FILE_BYTES = 8 * 1024 * 1024;
const SEARCH_BATCH = 64;

const grepInput = z.object({
  pattern: z.string().min(1).max(2000).describe("JavaScript regular expression"),
  path: z.string().optional().describe("File or directory (default: workspace)"),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
  ignore_case: z.boolean().optional(),
  fixed_strings: z.boolean().optional().describe("Pattern is plain text"),
  context: z.number().int().min(0).max(20).optional().describe("Context lines"),
  max_results: z.number().int().min(1).max(5000).optional().describe("Default 200"),
  files_only: z.boolean().optional().describe("Only file names"),
});

type GrepInput = z.output<typeof grepInput>;

function compilePattern(input: GrepInput): RegExp {
  const source = input.fixed_strings === true ? input.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : input.pattern;
  try {
    return new RegExp(source, input.ignore_case === true ? "iu" : "u");
  } catch (error) {
    throw new ToolError("invalid_pattern", `Invalid regular expression: ${(error as Error).message}`, {
      hint: "Escape special characters, or pass fixed_strings: true.",
    });
  }
}

/** `grep`: lines matching a regular expression across files, with optional context, bounded. */
export function createGrepTool(options: FileToolOptions = {}): AnyToolDefinition {
  return defineTool({
    name: "grep",
    description:
      "Search file contents with a regular expression. Returns path:line:text for each match (with context lines if asked). " +
      "Skips binary files, .git and node_modules.",
    inputSchema: grepInput,
    annotations: { title: "Search file contents", readOnlyHint: true },
    tags: ["builtin", "search", "grep", "regex", "find", "code", "text"],
    handler: async (input, context) => {
      const regex = compilePattern(input);
      const scope = resolveFileScope(context, options);
      const start = await scope.resolve(input.path ?? ".", "read");
      const startStats = await stat(start).catch(() => undefined);
      if (startStats === undefined) throw new ToolError("file_not_found", `No file or directory at "${input.path ?? "."}".`);
      const candidates = startStats.isFile()
        ? [{ absolute: start, relative: scope.display(start) }]
        : walkFiles(start, scope.display(start), context.signal);
      const { output, cut } = await collectMatches(candidates, (target) => scope.read(target), regex, input);
      if (output.length === 0) return `No matches for ${JSON.stringify(input.pattern)}.`;
      if (!cut) return output.join("\n");
      return `${output.join("\n")}\n[stopped at ${input.max_results ?? 200} results; narrow the search or raise max_results]`;
    },
  });
}

/** Runs the search over candidate files until `max_results` matching lines (or files) are found. */
async function collectMatches(
  candidates: AsyncIterable<{ absolute: string; relative: string }> | Iterable<{ absolute: string; relative: string }>,
  read: (absolute: string) => Promise<Buffer>,
  regex: RegExp,
  input: GrepInput,
): Promise<{ output: string[]; cut: boolean }> {
  const filter =
    input.glob === undefined ? undefined : new Minimatch(input.glob, { dot: true, matchBase: !input.glob.includes("/") });
  const limit = input.max_results ?? 200;
  const output: string[] = [];
  let matches = 0;
  let files = 0;
  for await (const batch of batches(candidates, SEARCH_BATCH)) {
    // Files of a batch are read and searched concurrently (file I/O latency dominates), and
    // reported in walk order, so the output is the same as a sequential search.
    const selected = filter === undefined ? batch : batch.filter((file) => filter.match(file.relative));
    const results = await Promise.all(selected.map((file) => searchFile(read, file.absolute, regex, input.context ?? 0)));
    for (const [index, found] of results.entries()) {
      if (found.length === 0) continue;
      const relative = (selected[index] as { relative: string }).relative;
      files++;
      if (input.files_only === true) {
        if (files > limit) return { output, cut: true };
        output.push(relative);
        continue;
      }
      for (const line of found) {
        if (line.match && ++matches > limit) return { output, cut: true };
        output.push(formatLine(relative, line));
      }
    }
  }
  return { output, cut: false };
}

/** Groups an (async) iterable into arrays of up to `size` items. */
async function* batches<T>(items: AsyncIterable<T> | Iterable<T>, size: number): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(item);
    if (batch.length >= size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** `path:line:text` for a match, `path-line-text` for a context line, as grep prints them. */
function formatLine(path: string, line: { number: number; text: string; match: boolean }): string {
  const separator = line.match ? ":" : "-";
  return `${path}${separator}${line.number}${separator}${line.text}`;
}

async function* walkFiles(
  start: string,
  prefix: string,
  signal: AbortSignal,
): AsyncGenerator<{ absolute: string; relative: string }> {
  for await (const entry of walkDirectory(start, { skipDirectories: DEFAULT_SKIPPED_DIRECTORIES, signal })) {
    if (entry.kind !== "file") continue;
    yield { absolute: entry.absolute, relative: prefix === "." ? entry.relative : `${prefix}/${entry.relative}` };
  }
}

async function searchFile(
  read: (absolute: string) => Promise<Buffer>,
  absolute: string,
  regex: RegExp,
  contextLines: number,
): Promise<{ number: number; text: string; match: boolean }[]> {
  const info = await stat(absolute).catch(() => undefined);
  if (info === undefined || info.size > MAX_FILE_BYTES) return [];
  // Through the scope, so the workspace sandbox's checks (no hard links, no escapes) hold here too.
  const bytes = await read(absolute).catch(() => undefined);
  if (bytes === undefined || looksBinary(bytes)) return [];
  const text = bytes.toString("utf8");
  if (!regex.test(text)) return [];
  const lines = splitLines(text);
  const keep = new Map<number, boolean>();
  lines.forEach((line, index) => {
    if (!regex.test(line)) return;
    for (let near = Math.max(0, index - contextLines); near <= Math.min(lines.length - 1, index + contextLines); near++) {
      if (!keep.get(near)) keep.set(near, near === index);
    }
    keep.set(index, true);
  });
  return [...keep.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([index, match]) => ({ number: index + 1, text: lines[index] as string, match }));
}
