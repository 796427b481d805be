/**
 * Differential property test: `grep` (both engines) and `glob` against `rg` run directly on small
 * random trees: odd names (spaces, unicode, a leading `-`, a line break, a leading `"`), CRLF
 * files, files without a final newline, empty files, binary files with a NUL late in them, long
 * lines, `.gitignore` / `.ignore` / `.rgignore` at two depths, hidden files and directories, links
 * to files and to directories; and random patterns and options (regex or fixed strings, case,
 * include/exclude globs, context, max_results, files_only). The reference is `rg` with the flags
 * the README gives for grep (`--hidden --no-require-git --no-ignore-global --no-ignore-parent`,
 * `.git`/`node_modules` excluded, `--sort path`), its lines cut as the README says grep cuts
 * them; for `glob`, `rg --files --no-ignore --hidden` with the glob (glob ignores no file but
 * `.git` and `node_modules`, and, as `rg --files`, lists no link met in the tree).
 *
 * Seeded (`GREP_DIFF_SEED` overrides; fast-check prints the seed and the shrunk tree on failure).
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type AnyToolDefinition, createRegistry } from "agent-tool-catalog";
import { createGlobTool, createGrepTool } from "agent-tool-catalog/tools";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const SEED = Number(process.env.GREP_DIFF_SEED ?? 5757);
// Each grep run is three searches (rg, both engines, the JavaScript one with its worker thread):
// about 0.5 CPU-s at load 20 on 2 cores, so few runs by default; seeds 1-4 ran 60-150 runs each.
const RUNS = Number(process.env.GREP_DIFF_RUNS ?? 8);

const DIRECTORIES = ["", "sub", "sub/deep", ".hid", "-d ir", "node_modules"] as const;
const NAMES = [
  "a.txt",
  "b.ts",
  "c d.md",
  "é.txt",
  "日本.ts",
  "-lead.txt",
  "keep.log",
  "x.log",
  ".hidden.txt",
  "new\nline.txt",
  '"q.txt',
  "top.txt",
  "b2.md",
] as const;
const LINES = [
  "foo",
  "Foo bar",
  "",
  "baz foo qux",
  "αβγ foo",
  "éfoo",
  "FOO",
  "a.b",
  "x(y",
  "  indented foo",
  "123 456",
  "tab\there",
  "naïve café",
] as const;
const IGNORE_LINES = [
  "*.log",
  "!keep.log",
  "sub/",
  "/top.txt",
  "deep",
  "b*",
  "*.md",
  "!b2.md",
  "/sub/deep/",
  "#c",
  ".hid",
] as const;
const PATTERNS = [
  "foo",
  "Foo",
  "^foo",
  "foo$",
  "o+",
  "a|b",
  "\\bfoo\\b",
  "f.o",
  "é",
  "\\w+foo",
  "[0-9]+",
  "a.b",
  "x(y",
  "^$",
  "^",
  "\\s",
  "caf",
  "\\d\\s\\d",
  "[α-ω]",
  ".",
] as const;
const GLOBS = ["*.txt", "!*.log", "sub/**", "*.{ts,md}", "./*.txt", "**/deep/*", "!sub", "*", "[a-c]*", "?.ts", "*.TXT"] as const;

type FileSpec = {
  dir: (typeof DIRECTORIES)[number];
  name: (typeof NAMES)[number];
  lines: string[];
  crlf: boolean;
  finalNewline: boolean;
  nulAt: number | undefined;
  long: number | undefined;
};

const fileSpec: fc.Arbitrary<FileSpec> = fc.record({
  dir: fc.constantFrom(...DIRECTORIES),
  name: fc.constantFrom(...NAMES),
  lines: fc.array(fc.constantFrom(...LINES), { maxLength: 6 }),
  crlf: fc.boolean(),
  finalNewline: fc.boolean(),
  nulAt: fc.option(fc.nat(8), { nil: undefined, freq: 6 }),
  long: fc.option(fc.integer({ min: 3990, max: 4020 }), { nil: undefined, freq: 6 }),
});

const ignoreSpec = fc.record({
  dir: fc.constantFrom("", "sub"),
  kind: fc.constantFrom(".gitignore", ".ignore", ".rgignore"),
  lines: fc.array(fc.constantFrom(...IGNORE_LINES), { minLength: 1, maxLength: 3 }),
});

const linkSpec = fc.record({
  dir: fc.constantFrom("", "sub"),
  name: fc.constantFrom("lnk.txt", "lnkdir"),
  target: fc.constantFrom("a.txt", "sub", "../a.txt", "missing"),
});

const tree = fc.record({
  files: fc.array(fileSpec, { minLength: 1, maxLength: 7 }),
  ignores: fc.array(ignoreSpec, { maxLength: 2 }),
  links: fc.array(linkSpec, { maxLength: 1 }),
});

const grepQuery = fc.record({
  pattern: fc.constantFrom(...PATTERNS),
  ignore_case: fc.boolean(),
  fixed_strings: fc.boolean(),
  glob: fc.option(fc.constantFrom(...GLOBS), { nil: undefined, freq: 3 }),
  context: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined }),
  max_results: fc.option(fc.constantFrom(1, 2, 3), { nil: undefined, freq: 4 }),
  files_only: fc.boolean(),
  path: fc.option(fc.constantFrom("sub", "sub/deep", "-d ir"), { nil: undefined, freq: 3 }),
});

/** Where glob starts: the root, or a directory below it. */
const searchedPath = fc.option(fc.constantFrom("sub", "sub/deep", "-d ir"), { nil: undefined, freq: 2 });

type Tree = typeof tree extends fc.Arbitrary<infer T> ? T : never;
type Query = typeof grepQuery extends fc.Arbitrary<infer T> ? T : never;

let counter = 0;
let base: string;

async function build(spec: Tree): Promise<string> {
  const root = path.join(base, String(counter++));
  await mkdir(root);
  for (const dir of DIRECTORIES) await mkdir(path.join(root, dir), { recursive: true });
  for (const file of spec.files) {
    const eol = file.crlf ? "\r\n" : "\n";
    const lines = [...file.lines];
    if (file.long !== undefined) lines.push(`${"foo ".repeat(Math.ceil(file.long / 4)).slice(0, file.long)}`);
    let text = lines.join(eol) + (file.finalNewline && lines.length > 0 ? eol : "");
    if (file.nulAt !== undefined) {
      const at = Math.min(file.nulAt * 3, text.length);
      text = `${text.slice(0, at)}\0${text.slice(at)}`;
    }
    await writeFile(path.join(root, file.dir, file.name), text);
  }
  for (const ignore of spec.ignores) await writeFile(path.join(root, ignore.dir, ignore.kind), `${ignore.lines.join("\n")}\n`);
  for (const link of spec.links) await symlink(link.target, path.join(root, link.dir, link.name)).catch(() => undefined);
  return root;
}

/** A pattern rg refuses: grep refuses it too (`invalid_pattern`), in both engines. */
class Refused extends Error {}

function rg(root: string, args: string[]): string {
  try {
    return execFileSync("rg", args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (error) {
    const failed = error as { status?: number; stdout?: string; stderr?: string };
    if (failed.status === 1) return failed.stdout ?? "";
    // Every file filtered out by the globs: rg says so and exits 2; grep answers "No matches".
    if (failed.status === 2 && failed.stdout === "" && failed.stderr?.startsWith("No files were searched") === true) return "";
    if (failed.status === 2 && failed.stderr?.startsWith("regex parse error") === true) throw new Refused(failed.stderr);
    throw error;
  }
}

/** A path as the tools print it (README: a control character or a leading `"` makes it a JSON string). */
function shown(name: string): string {
  const control = [...name].some((character) => character < " " || character === "\u007f");
  return control || name.startsWith('"') ? JSON.stringify(name) : name;
}

/** README: a line over 4,000 characters is cut there and says how many more it had. */
function cut(text: string): string {
  return text.length <= 4000 ? text : `${text.slice(0, 4000)} [... line cut: ${text.length - 4000} more characters]`;
}

function forGlob(glob: string): string {
  return glob.startsWith("./") ? `/${glob.slice(2)}` : glob;
}

/** `rg`'s answer for a query, as the tool prints it (without the cut note and engine line). */
function expectedGrep(root: string, query: Query): { lines: string[]; matches: number[] } {
  const args = ["--no-config", "--hidden", "--no-require-git", "--no-ignore-global", "--no-ignore-parent", "--sort", "path"];
  // Last matching glob wins in rg: the skipped directories' come last, so no glob re-includes them.
  if (query.glob !== undefined) args.push("--glob", forGlob(query.glob));
  for (const name of [".git", "node_modules", ".hg", ".svn"]) args.push("--glob", `!${name}`);
  if (query.ignore_case) args.push("--ignore-case");
  if (query.fixed_strings) args.push("--fixed-strings");
  if (query.files_only) args.push("--files-with-matches", "--null");
  else {
    args.push("--line-number", "--with-filename", "--no-heading", "--null", "--no-context-separator");
    if ((query.context ?? 0) > 0) args.push("--context", String(query.context));
  }
  args.push("--regexp", query.pattern);
  // README: a glob is matched from the search's start. rg matches its globs from where it runs:
  // so with both, rg runs in the searched directory, reading the ignore files above it as
  // parents (no --no-ignore-parent), and its names get the directory as their prefix.
  const fromStart = query.path !== undefined && query.glob !== undefined;
  const out = fromStart
    ? rg(
        path.join(root, query.path as string),
        args.filter((arg) => arg !== "--no-ignore-parent"),
      )
    : rg(root, args);
  const prefix = fromStart ? `${query.path}/` : "";
  // README: a search of a directory below the root lists what rg at the root lists there.
  const below = (name: string) => query.path === undefined || name.startsWith(`${query.path}/`);
  if (query.files_only) {
    const names = out
      .split("\0")
      .filter(Boolean)
      .map((name) => prefix + name)
      .filter(below)
      .map(shown);
    return { lines: names, matches: names.map((_, index) => index) };
  }
  const lines: string[] = [];
  const matches: number[] = [];
  // Each record: name NUL number (: or -) text LF; a text may hold a CR.
  let at = 0;
  while (at < out.length) {
    const nul = out.indexOf("\0", at);
    const lineEnd = out.indexOf("\n", at);
    if ((nul === -1 || lineEnd < nul) && /: WARNING: stopped searching binary file/.test(out.slice(at, lineEnd))) {
      // rg's note about a binary file ("NAME: WARNING: stopped searching binary file after match"):
      // grep leaves it out (README).
      at = lineEnd + 1;
      continue;
    }
    const name = prefix + out.slice(at, nul);
    const end = out.indexOf("\n", nul);
    if (!below(name)) {
      at = end + 1;
      continue;
    }
    const rest = out.slice(nul + 1, end);
    const number = /^(\d+)([:-])/.exec(rest);
    if (number === null) throw new Error(`unparsed rg line ${JSON.stringify(rest)}`);
    if (number[2] === ":") matches.push(lines.length);
    lines.push(`${shown(name)}${number[2]}${number[1]}${number[2]}${cut(rest.slice(number[0].length))}`);
    at = end + 1;
  }
  return { lines, matches };
}

async function callTool(root: string, tools: AnyToolDefinition[], name: string, input: object) {
  const result = await callRaw(root, tools, name, input);
  if (!result.ok) throw new Error(`${name} failed: ${JSON.stringify(result)}`);
  return String(result.output);
}

function callRaw(root: string, tools: AnyToolDefinition[], name: string, input: object) {
  const run = createRegistry({ tools }).createRun({ profile: "full", permissions: { workspace: root, sandbox: "unrestricted" } });
  return run.call(name, input);
}

const engines = {
  ripgrep: createGrepTool({ engine: "ripgrep" }),
  javascript: createGrepTool({ engine: "javascript" }),
};

/** The tool's lines without its footer (engine line, cut note). */
function grepLines(output: string): { lines: string[]; cutNote: boolean; engine: string } {
  const all = output.split("\n");
  const engine = all.pop() ?? "";
  const cutNote = all.at(-1)?.startsWith("[stopped at ") === true;
  if (cutNote) all.pop();
  if (all.length === 1 && all[0]?.startsWith("No matches for ")) return { lines: [], cutNote, engine };
  return { lines: all, cutNote, engine };
}

describe.skipIf(ripgrep.missing)(ripgrep.label("grep and glob against rg on random trees"), () => {
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-diff-"));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it(
    "grep prints rg's lines, in both engines",
    async () => {
      await fc.assert(
        fc.asyncProperty(tree, grepQuery, async (spec, query) => {
          const root = await build(spec);
          try {
            const input = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
            let expected: ReturnType<typeof expectedGrep>;
            try {
              expected = expectedGrep(root, query);
            } catch (error) {
              if (!(error instanceof Refused)) throw error;
              for (const tool of Object.values(engines)) {
                const result = await callRaw(root, [tool], "grep", input);
                expect(result.ok ? "ok" : result.error.code).toBe("invalid_pattern");
              }
              return;
            }
            const limit = query.max_results ?? 200;
            for (const [engine, tool] of Object.entries(engines)) {
              const got = grepLines(await callTool(root, [tool], "grep", input));
              const label = `${engine} (${got.engine})`;
              if (expected.matches.length <= limit) {
                expect(got.lines, label).toEqual(expected.lines);
                expect(got.cutNote, label).toBe(false);
              } else {
                // Cut: the first `limit` matches in path order, with their context.
                const kept = got.lines.filter((line) => expected.lines.includes(line));
                expect(kept, label).toEqual(got.lines);
                const firstMatches = expected.matches.slice(0, limit).map((index) => expected.lines[index]);
                expect(
                  got.lines.filter((line) => firstMatches.includes(line)),
                  label,
                ).toEqual(firstMatches);
                expect(got.cutNote, label).toBe(true);
              }
            }
          } finally {
            await rm(root, { recursive: true, force: true });
          }
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: false },
      );
    },
    Number(process.env.GREP_DIFF_TIMEOUT_MS ?? 120_000),
  );

  it("a glob with a / and a path: matched from the search's start, as rg run there, in both engines", async () => {
    // Few random runs draw such a pair: these are the pairs, on one tree (round 42: both engines
    // matched from the root, so `**/deep/*` under `sub` held, `deep/*` and `./*.txt` found nothing).
    const lines = ["foo"];
    const files = (["", "sub", "sub/deep", "-d ir"] as const).flatMap((dir) =>
      (["a.txt", "b.ts"] as const).map((name) => ({
        dir,
        name,
        lines,
        crlf: false,
        finalNewline: true,
        nulAt: undefined,
        long: undefined,
      })),
    );
    const root = await build({ files, ignores: [{ dir: "", kind: ".gitignore", lines: ["b*"] }], links: [] });
    try {
      for (const glob of ["deep/*", "./*.txt", "sub/**", "!deep/a.txt", "**/deep/*"]) {
        for (const searched of ["sub", "-d ir"]) {
          const query: Query = {
            pattern: "foo",
            ignore_case: false,
            fixed_strings: false,
            files_only: true,
            glob,
            path: searched,
          } as Query;
          const expected = expectedGrep(root, query).lines;
          for (const [engine, tool] of Object.entries(engines)) {
            const got = grepLines(
              await callTool(root, [tool], "grep", { pattern: "foo", files_only: true, glob, path: searched }),
            );
            expect(got.lines, `${engine} glob ${glob} path ${searched}`).toEqual(expected);
          }
        }
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);

  it(
    "glob lists rg --files' names",
    async () => {
      const glob = createGlobTool();
      await fc.assert(
        fc.asyncProperty(
          tree,
          fc.constantFrom(...GLOBS.filter((g) => !g.startsWith("!"))),
          searchedPath,
          async (spec, pattern, searched) => {
            const root = await build(spec);
            try {
              const args = ["--no-config", "--files", "--no-ignore", "--hidden", "--null", "--glob", forGlob(pattern)];
              args.push("--glob", "!.git", "--glob", "!node_modules");
              // With a path: rg --files run there (the pattern is matched from the start), names prefixed.
              const listed = rg(searched === undefined ? root : path.join(root, searched), args)
                .split("\0")
                .filter(Boolean);
              const expected = listed
                .map((name) => (searched === undefined ? name : `${searched}/${name}`))
                .map(shown)
                .sort();
              const output = await callTool(
                root,
                [glob],
                "glob",
                searched === undefined ? { pattern } : { pattern, path: searched },
              );
              // glob lists a link met in the tree by its own name (and does not enter it); rg --files leaves it out.
              const links = new Set(spec.links.map((link) => path.posix.join(link.dir, link.name)));
              const got = (output.startsWith("No files match") ? [] : output.split("\n").slice(1))
                .filter((name) => !links.has(name))
                .sort();
              expect(got, `glob ${pattern} path ${searched}`).toEqual(expected);
            } finally {
              await rm(root, { recursive: true, force: true });
            }
          },
        ),
        { seed: SEED, numRuns: RUNS * 2 },
      );
    },
    Number(process.env.GREP_DIFF_TIMEOUT_MS ?? 120_000),
  );
});
