import type { Stats } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { type AnyToolDefinition, defineTool, type ToolContext, ToolError } from "agent-tool-catalog";
import { z } from "zod";
import { checkChoiceOption } from "../../errors/check-choice-option.js";
import { checkNumberOption, TIMER_MS } from "../../errors/check-number-option.js";
import { countOf } from "../../errors/count-of.js";
import { createProcessSandbox } from "../sandbox/create-process-sandbox.js";
import type { ProcessSandbox } from "../sandbox/process-sandbox.js";
import { RUN_RESOURCE_BUDGET } from "../sandbox/run-resource-budget.js";
import { SandboxViolationError } from "../sandbox/sandbox-violation-error.js";
import { findTrustedExecutable } from "../sandbox/trusted-executable.js";
import { checkFileToolOptions } from "./check-file-tool-options.js";
import type { FileToolOptions } from "./file-tool-options.js";
import { globFromStart, withoutLeadingDotSlash } from "./glob-pattern.js";
import { GrepGlobOverride } from "./grep-glob-override.js";
import { toSlash } from "./grep-ignore-rules.js";
import { findUnsafeIgnoreFile, type UnsafeIgnoreFile } from "./grep-ignore-scan.js";
import { readIgnoreFile, searchWithJavaScript } from "./grep-javascript.js";
import { parentIgnoreFiles } from "./grep-parent-ignores.js";
import { type GrepAnswer, type GrepQuery, RipgrepUnusableError, searchWithRipgrep } from "./grep-ripgrep.js";
import { withUnicodeClasses } from "./grep-unicode-classes.js";
import { unsearchedFooter } from "./grep-unsearched-footer.js";
import { LineMatcher, MatchDeadlineError } from "./grep-worker.js";
import { hasUnsafeCharacter, quotedName } from "./listed-name.js";
import { resolveFileScope } from "./resolve-file-scope.js";
import { confinementRoot } from "./walk-directory.js";

/**
 * Options of the `grep` tool; all of them are the host's.
 *
 * @public
 */
export interface GrepToolOptions extends FileToolOptions {
  /**
   * Which engine searches. `"auto"`: ripgrep when a trusted `rg` is installed and the run's
   * process sandbox starts (ripgrep then runs inside it), else the JavaScript engine. Any other
   * value fails `createGrepTool` with `invalid_option`.
   * @defaultValue `"auto"`
   */
  readonly engine?: "auto" | "ripgrep" | "javascript";
  /**
   * How long the JavaScript engine may spend matching one batch of files before the pattern is
   * refused as too slow (its worker thread is then terminated): the thread's CPU time on Linux,
   * with 10 times it in wall time as the bound on a thread the host's load starves; wall time
   * elsewhere. Whole milliseconds from 1 to
   * 2^31 - 1 (Node fires a longer timer at once); anything else fails `createGrepTool` with
   * `invalid_option`.
   * @defaultValue 5000
   */
  readonly matchDeadlineMs?: number;
  /**
   * How long either engine may search before the call ends with `timeout` (ripgrep is stopped, the
   * JavaScript engine's worker ended). A file swapped for a named pipe while ripgrep walks would
   * otherwise block it for ever, and the JavaScript engine on a huge tree run on. Whole milliseconds
   * from 1 to 2^31 - 1 (there is no "no timeout": Node fires a longer timer at once); anything else
   * fails `createGrepTool` with `invalid_option`.
   * @defaultValue 60000
   */
  readonly searchTimeoutMs?: number;
}

const grepInput = z.object({
  pattern: z.string().min(1).max(2000).describe("Regular expression, matched per line (as ripgrep)"),
  path: z.string().optional().describe("File or directory (default: workspace)"),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
  ignore_case: z.boolean().optional(),
  fixed_strings: z.boolean().optional().describe("Pattern is plain text"),
  context: z.number().int().min(0).max(20).optional().describe("Context lines"),
  max_results: z.number().int().min(1).max(5000).optional().describe("Default 200"),
  files_only: z.boolean().optional().describe("Only file names"),
});

type GrepInput = z.output<typeof grepInput>;

/**
 * `grep`: lines matching a regular expression across files, as ripgrep finds them (each line on
 * its own, `^`/`$` anchored to the line, `.gitignore` honoured, hidden files searched, `.git` and
 * `node_modules` skipped, binary files skipped, files of any size searched, in a directory or named
 * on their own (a large one in pieces, in bounded memory), and a file that could not be searched
 * is named in the result, never silently left out). With
 * ripgrep installed it runs
 * `rg` inside the run's process sandbox; otherwise a JavaScript engine walks the same files and
 * matches in a worker thread with a deadline, so a pathological pattern never blocks the host.
 * The result's last line names the engine.
 * @public
 */
export function createGrepTool(options: GrepToolOptions = {}): AnyToolDefinition {
  checkFileToolOptions(options, "createGrepTool");
  checkChoiceOption(options.engine, "engine", ["auto", "ripgrep", "javascript"], "createGrepTool");
  checkNumberOption(options.matchDeadlineMs, "matchDeadlineMs", TIMER_MS, "createGrepTool");
  checkNumberOption(options.searchTimeoutMs, "searchTimeoutMs", TIMER_MS, "createGrepTool");
  const sandboxes = new Map<string, Promise<ProcessSandbox | undefined>>();
  // Per workspace root: a copy trusted for one root may lie inside another run's workspace.
  const ripgreps = new Map<string, string | undefined>();
  const ripgrepPath = (root: string) => {
    if (!ripgreps.has(root)) {
      const found = findTrustedExecutable("rg", { untrustedRoots: [root] });
      ripgreps.set(root, found.ok ? found.path : undefined);
    }
    return ripgreps.get(root);
  };
  const sandboxFor = (context: ToolContext, root: string): Promise<ProcessSandbox | undefined> => {
    const scope = context.permissions.sandbox;
    const key = `${scope}\u0000${root}`;
    let sandbox = sandboxes.get(key);
    if (sandbox === undefined) {
      sandbox = createProcessSandbox({ scope, workspace: root }).catch(() => undefined);
      sandboxes.set(key, sandbox);
    }
    return sandbox;
  };
  return defineTool({
    name: "grep",
    description:
      "Search file contents with a regular expression, per line like ripgrep: path:line:text per match " +
      "(path-line-text for context lines). Honours .gitignore; skips binary files, .git and node_modules.",
    inputSchema: grepInput,
    annotations: { title: "Search file contents", readOnlyHint: true },
    tags: ["builtin", "search", "grep", "regex", "find", "code", "text"],
    handler: async (input, context) => {
      const regex = compilePattern(input);
      const scope = resolveFileScope(context, options);
      const start = await scope.resolve(input.path ?? ".", "read");
      const startStats = await stat(start).catch(() => undefined);
      checkStart(startStats, input);
      const query = toQuery(input, startStats.isDirectory() ? path.relative(scope.root, start) : "");
      const wanted = options.engine ?? "auto";
      // One file is read by the JavaScript engine, through a non-blocking open checked on the
      // descriptor: ripgrep would block for ever on a named pipe swapped in after the check.
      const executable =
        wanted === "javascript" || (wanted === "auto" && startStats.isFile()) ? undefined : ripgrepPath(scope.root);
      const sandbox = executable === undefined ? undefined : await sandboxFor(context, scope.root);
      if (wanted === "ripgrep" && (executable === undefined || sandbox === undefined)) {
        throw new ToolError(
          "engine_unavailable",
          "grep is configured to use ripgrep, which is not installed or cannot start here.",
        );
      }
      const confinement = await confinementRoot(context, scope.root);
      const readIgnore = (file: string) => readIgnoreFile((target) => scope.openRead(target), file);
      let { answer, engine } =
        executable === undefined || sandbox === undefined
          ? { answer: undefined, engine: "javascript worker" }
          : await ripgrepUnlessUnsafe(
              context,
              scope.root,
              start,
              confinement.confineTo,
              readIgnore,
              wanted === "ripgrep",
              query.glob === undefined ? undefined : new GrepGlobOverride(query.glob),
              (display) => displayPath(scope.display(display)),
              (signal) =>
                withSearchTimeout(options.searchTimeoutMs ?? 60_000, signal, "ripgrep", (each) =>
                  tryRipgrep(sandbox, executable, scope.root, start, query, each, {
                    startIsFile: startStats.isFile(),
                    display: (absolute) => displayPath(scope.display(absolute)),
                    readIgnore,
                  }),
                ),
            );
      // The JavaScript engine is bounded as ripgrep is: its 5 s per-piece match deadline alone
      // lets a whole tree (or a huge file) of quick matches run on for ever.
      answer ??= await withSearchTimeout(options.searchTimeoutMs ?? 60_000, context.signal, "the JavaScript engine", (signal) =>
        searchInWorker(input, regex, options.matchDeadlineMs ?? 5000, {
          root: scope.root,
          start,
          startIsFile: startStats.isFile(),
          query,
          read: (target) => scope.read(target),
          open: (target) => scope.openRead(target),
          signal,
          ...confinement,
        }),
      );
      return format(answer, input, (absolute) => displayPath(scope.display(absolute)), engine);
    },
  });
}

/**
 * ripgrep's answer, unless an ignore file it would open is unsafe (see {@link findUnsafeIgnoreFile}):
 * then the JavaScript engine answers (it does not apply such a file, and applies the others), in
 * every engine mode (as when ripgrep refuses a pattern), and the engine note says so.
 *
 * ripgrep starts while grep looks (its start in the sandbox costs wall time the look fills), and
 * its answer is used only once the look has found nothing: an unsafe file found stops it and
 * drops what it read. So a named pipe it opens meanwhile holds it until the look ends, a device
 * (`/dev/zero`) is read that long at most, and what it read through a link out of the workspace
 * is never shown; on Linux it is also watched while it runs (see `watchForBlockedRipgrep`), which
 * bounds a named pipe or device met after the look, or in a directory the look did not enter, to
 * about 100 ms.
 */
async function ripgrepUnlessUnsafe(
  context: ToolContext,
  root: string,
  start: string,
  confineTo: string | undefined,
  readIgnore: (absolute: string) => Promise<string | undefined>,
  ripgrepOnly: boolean,
  glob: GrepGlobOverride | undefined,
  display: (absolute: string) => string,
  search: (signal: AbortSignal) => Promise<RipgrepAttempt>,
): Promise<{ answer: GrepAnswer | undefined; engine: string }> {
  let nestedRepository = false;
  const onRepository = (directory: string) => {
    if (directory !== start) nestedRepository = true;
  };
  // ripgrep ranks the files given with --ignore-file below every ignore file of the tree, where
  // rg run at the root ranks by kind first: the look tells where the two would differ.
  let rankDifference: string | undefined;
  const onRankDifference = (relative: string) => {
    rankDifference = relative;
  };
  const dropped = new AbortController();
  const searching = ripgrepWithinBudget(context, ripgrepOnly, (signal) => search(AbortSignal.any([signal, dropped.signal])));
  // Settled even when dropped, so that it is never an unhandled rejection.
  const settled = searching.then(
    (attempt) => ({ attempt }),
    (error: unknown) => ({ error }),
  );
  let unsafe: UnsafeIgnoreFile | undefined;
  try {
    unsafe = await findUnsafeIgnoreFile(start, {
      confineTo,
      signal: context.signal,
      root,
      onRepository,
      onRankDifference,
      readIgnore,
      glob,
    });
  } catch (error) {
    dropped.abort();
    throw error;
  }
  if (unsafe === undefined) {
    const outcome = await settled;
    if ("error" in outcome) throw outcome.error;
    if (outcome.attempt.gitAbove === true && nestedRepository) {
      const why = "a .gitignore above the path does not apply in the git repository nested below it, which ripgrep cannot tell";
      return { answer: undefined, engine: `javascript worker (ripgrep was not run: ${why})` };
    }
    if (outcome.attempt.givenAbove === true && rankDifference !== undefined) {
      const why = `an ignore file above the path ranks over one below it for ${rankDifference}, which ripgrep given it with --ignore-file ranks last`;
      return { answer: undefined, engine: `javascript worker (ripgrep was not run: ${why})` };
    }
    return outcome.attempt;
  }
  dropped.abort();
  await settled;
  // Even with engine "ripgrep": ripgrep run without ignore files (--no-ignore) searched what
  // the safe ones exclude (a gitignored build/ holding a named pipe listed build/'s files).
  const note = `${display(unsafe.absolute)} is ${unsafe.reason}`;
  return { answer: undefined, engine: `javascript worker (ripgrep was not run: ${note})` };
}

/**
 * What the ripgrep engine made of a call: its answer or why none, and whether a `.gitignore` or
 * exclude file between the workspace root and the path was given to it (`gitAbove`: wrong in a
 * repository nested below the path, which only the look at the tree finds).
 */
interface RipgrepAttempt {
  readonly answer: GrepAnswer | undefined;
  readonly engine: string;
  readonly gitAbove?: boolean;
  /** Ignore files above the path were given to ripgrep with `--ignore-file`. */
  readonly givenAbove?: boolean;
}

/**
 * ripgrep is a process of the run: it takes one of the run's processes (and of its ancestors')
 * while it runs. With none free now the JavaScript engine (in the host) answers instead, or, when
 * grep may use ripgrep only, the call fails with `run_limit_reached`.
 */
async function ripgrepWithinBudget(
  context: ToolContext,
  ripgrepOnly: boolean,
  search: (signal: AbortSignal) => Promise<RipgrepAttempt>,
): Promise<RipgrepAttempt> {
  const holding = { label: `grep ${context.callId}`, tool: "grep", processes: 1, memoryBytes: 0 };
  const share = context.storage.get(RUN_RESOURCE_BUDGET).tryReserveWithAncestors(holding, context.runId);
  if (share === undefined) {
    if (ripgrepOnly) {
      throw new ToolError(
        "run_limit_reached",
        "grep did not start ripgrep: the run's commands hold all of its processes (runLimits), and grep is configured to use ripgrep only.",
        {
          hint: "Wait for the running commands to finish, or stop a background command (monitor stop).",
          data: { reason: "held", limit: "processes" },
        },
      );
    }
    return { answer: undefined, engine: "javascript worker (no process of the run's budget was free for ripgrep)" };
  }
  try {
    // A parent run closing ends the search as it ends the run's other commands.
    return await search(AbortSignal.any([context.signal, share.revoked]));
  } finally {
    // searchWithRipgrep returns once ripgrep has exited.
    share.release();
  }
}

/** Runs `search` with a signal that also fires after `timeoutMs`; that timeout is a `timeout` tool error. */
async function withSearchTimeout<T>(
  timeoutMs: number,
  signal: AbortSignal,
  engine: "ripgrep" | "the JavaScript engine",
  search: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timer = AbortSignal.timeout(timeoutMs);
  try {
    return await search(AbortSignal.any([signal, timer]));
  } catch (error) {
    if (timer.aborted && !signal.aborted) {
      const hint =
        engine === "ripgrep"
          ? "Search a smaller directory. A named pipe or device swapped in while ripgrep searched can block it."
          : "Search a smaller directory or file, or narrow the pattern or glob.";
      throw new ToolError("timeout", `grep stopped after ${Math.round(timeoutMs / 1000)} s: ${engine} did not finish.`, {
        hint,
      });
    }
    throw error;
  }
}

/**
 * ripgrep's answer, or none (and why, as the engine note) when its regex syntax or start fails, or
 * when an ignore file between the workspace root and the searched directory holds a pattern
 * ripgrep cannot apply there (see {@link parentIgnoreFiles}).
 */
async function tryRipgrep(
  sandbox: ProcessSandbox,
  executable: string,
  root: string,
  start: string,
  query: GrepQuery,
  signal: AbortSignal,
  parents: {
    readonly startIsFile: boolean;
    readonly display: (absolute: string) => string;
    readonly readIgnore: (absolute: string) => Promise<string | undefined>;
  },
): Promise<RipgrepAttempt> {
  const relative = path.relative(root, start);
  const target = relative === "" ? undefined : relative.startsWith("..") || path.isAbsolute(relative) ? start : relative;
  // A file named on its own is searched whatever the ignore files say (as `rg PATTERN file`).
  const above =
    query.ignoreFiles === false || parents.startIsFile
      ? { files: [], git: false }
      : await parentIgnoreFiles(root, start, parents.readIgnore);
  if ("unusable" in above) {
    const why = `${parents.display(above.unusable)} has a pattern anchored to its directory, which ripgrep cannot apply below it`;
    return { answer: undefined, engine: `javascript worker (ripgrep was not run: ${why})` };
  }
  try {
    const answer = await searchWithRipgrep(sandbox, executable, root, target, { ...query, parentIgnores: above.files }, signal);
    return {
      answer,
      engine: `ripgrep, sandbox ${sandbox.kind}/${sandbox.scope}`,
      gitAbove: above.git,
      givenAbove: above.files.length > 0,
    };
  } catch (error) {
    if (!(error instanceof RipgrepUnusableError)) throw error;
    return { answer: undefined, engine: `javascript worker (${error.message.split("\n")[0]})` };
  }
}

/**
 * The start of a search must be a regular file or a directory. A file named on its own is
 * searched whatever its size, as `rg PATTERN file` searches it (a large one in pieces).
 */
function checkStart(startStats: Stats | undefined, input: GrepInput): asserts startStats is Stats {
  if (startStats === undefined) throw new ToolError("file_not_found", `No file or directory at "${input.path ?? "."}".`);
  if (!startStats.isFile() && !startStats.isDirectory()) {
    throw new SandboxViolationError("special_file_refused", `Refused "${input.path}": it is not a regular file or a directory.`, {
      data: { path: input.path },
    });
  }
}

/** The JavaScript engine, its worker always ended, a deadline turned into `pattern_too_slow`. */
async function searchInWorker(
  input: GrepInput,
  regex: RegExp,
  deadlineMs: number,
  search: Omit<Parameters<typeof searchWithJavaScript>[0], "matcher">,
): Promise<GrepAnswer> {
  const matcher = new LineMatcher(regex.source, regex.flags, deadlineMs);
  try {
    return await searchWithJavaScript({ ...search, matcher });
  } catch (error) {
    if (error instanceof MatchDeadlineError) {
      throw new ToolError(
        "pattern_too_slow",
        `The pattern ${JSON.stringify(input.pattern)} took longer than ${error.deadlineMs} ms to match (catastrophic backtracking); the search was stopped.`,
        { hint: "Simplify the pattern: avoid nested quantifiers such as (a+)+, or pass fixed_strings: true." },
      );
    }
    throw error;
  } finally {
    await matcher.close();
  }
}

/** The query for both engines; `start`: the searched directory relative to the root ("" for the root or a file). */
function toQuery(input: GrepInput, start: string): GrepQuery {
  return {
    pattern: input.pattern,
    ignoreCase: input.ignore_case === true,
    fixedStrings: input.fixed_strings === true,
    glob: input.glob === undefined ? undefined : globFromStart(withoutLeadingDotSlash(input.glob), toSlash(start)),
    context: input.context ?? 0,
    limit: input.max_results ?? 200,
    filesOnly: input.files_only === true,
  };
}

/** The pattern as the JavaScript engine runs it (validated here, so a bad one fails on either engine). */
function compilePattern(input: GrepInput): RegExp {
  const source = input.fixed_strings === true ? input.pattern.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") : input.pattern;
  const flags = input.ignore_case === true ? "iu" : "u";
  try {
    // Checked as written (an invalid pattern fails on either engine), run with ripgrep's Unicode
    // meaning of \w, \d and \b.
    new RegExp(source, flags);
    return new RegExp(input.fixed_strings === true ? source : withUnicodeClasses(source), flags);
  } catch (error) {
    // Both engines must accept a pattern: ripgrep-only syntax (inline flags, POSIX classes, \x{..})
    // would leave the JavaScript engine, which answers when ripgrep cannot, without an answer.
    throw new ToolError(
      "invalid_pattern",
      `Invalid regular expression ${JSON.stringify(input.pattern)}: ${engineReason(error)}.`,
      {
        hint:
          "Patterns are JavaScript regular expressions (u flag) that ripgrep also accepts. Escape special characters, " +
          "or pass fixed_strings: true; for ripgrep-only forms use ignore_case: true instead of (?i), [A-Za-z] or \\p{L} " +
          "instead of [[:alpha:]], \\u{41} instead of \\x{41}, \\p{Script=Greek} instead of \\p{Greek}, {0,3} instead of {,3}.",
      },
    );
  }
}

/**
 * Why V8 refused a pattern, without its own "Invalid regular expression: /<source>/u: " prefix:
 * after ours it read "Invalid regular expression: Invalid regular expression: /(/u: ...", and
 * the `/.../u` form showed a pattern the model never wrote.
 */
function engineReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Invalid regular expression: \/[\s\S]*\/[dgimsuvy]*: /, "").replace(/\.$/, "");
}

function format(answer: GrepAnswer, input: GrepInput, displayOne: (absolute: string) => string, engine: string): string {
  // Lines come file by file: each path is turned into its shown form once, not once per line
  // (path.relative per line was a sixth of the host's CPU for 2,300 matches in 840 files).
  let lastAbsolute: string | undefined;
  let lastShown = "";
  const display = (absolute: string) => {
    if (absolute !== lastAbsolute) {
      lastAbsolute = absolute;
      lastShown = displayOne(absolute);
    }
    return lastShown;
  };
  // A file left out (a line too long to hold) is named, so that "No matches" is never read as
  // "not in that file".
  const unsearched = unsearchedFooter(answer.unsearched ?? [], display);
  // ripgrep's other messages (an ignore file it could not parse): the answer may hold what it would have left out.
  const messages = (answer.messages ?? []).map((message) => `[ripgrep: ${message}]\n`).join("");
  const footer = `${unsearched}${messages}[engine: ${engine}]`;
  const output =
    input.files_only === true
      ? answer.files.map(display)
      : answer.lines.map((line) => {
          const separator = line.match ? ":" : "-";
          return `${display(line.absolute)}${separator}${line.number}${separator}${line.text}`;
        });
  if (output.length === 0) return `No matches for ${JSON.stringify(input.pattern)}.\n${footer}`;
  const cut = answer.cut
    ? `\n[stopped at ${countOf(input.max_results ?? 200, "result")}; narrow the search or raise max_results]`
    : "";
  return `${output.join("\n")}${cut}\n${footer}`;
}

/**
 * A path as grep prints it: as it is, or, when it holds a control character, a line separator or a
 * bidirectional override, as a JSON string (`"a\nb.txt":1:text`, those escaped as `\uXXXX`), so
 * that a name holding a line break can neither pass for two result lines nor add a fake
 * `[not searched: ...]` line. A name that starts with `"` is quoted too:
 * a file literally named `"a\nb.txt"` printed as `a⏎b.txt` does.
 */
function displayPath(shown: string): string {
  return hasUnsafeCharacter(shown) || shown.startsWith('"') ? quotedName(shown) : shown;
}
