import { spawnSync } from "node:child_process";
import { gitMallocEnvironment } from "./git-malloc.js";

/** Options of {@link writeLongHistory}. */
export interface LongHistoryOptions {
  /** Commits to write, merges included. @defaultValue 3000 */
  readonly commits?: number;
  /** Files in the first commit. @defaultValue 400 */
  readonly files?: number;
  /** Seed, so every run writes the same repository. @defaultValue 11 */
  readonly seed?: number;
}

/** What was written, for picking questions. */
export interface LongHistory {
  readonly commits: number;
  readonly merges: number;
  readonly renames: number;
  /** Paths at the tip, sorted. */
  readonly paths: readonly string[];
  /** Directories that exist at the tip. */
  readonly directories: readonly string[];
}

const AUTHORS = [
  "Ada Lovelace",
  "Alan Turing",
  "Grace Hopper",
  "Edsger Dijkstra",
  "Barbara Liskov",
  "Ken Thompson",
  "Frances Allen",
];
const DIRECTORIES = ["src/core", "src/io", "src/net", "lib/util", "lib/text", "docs"];
const WORDS = ["parser", "cache", "index", "router", "config", "logger", "client", "server", "schema", "worker"];
/** Lines that occur many times in many files: blame must attribute each copy the way git does. */
const COMMON_LINES = ["}", "", "  return null;", "  i++;", "  }", "  // TODO", "  break;", "{", "  return result;"];

/** A small deterministic generator (mulberry32). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Tree = Map<string, readonly string[]>;

interface State {
  readonly random: () => number;
  readonly chunks: string[];
  mark: number;
  time: number;
  merges: number;
  renames: number;
  unique: number;
}

const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
const content = (lines: readonly string[]) => (lines.length === 0 ? "" : `${lines.join("\n")}\n`);

function pick<T>(state: State, items: readonly T[]): T {
  return items[Math.floor(state.random() * items.length)] as T;
}

function line(state: State): string {
  if (state.random() < 0.35) return pick(state, COMMON_LINES);
  const word = pick(state, WORDS);
  if (state.random() < 0.01) return `  const marker = "NEEDLE_${word}";`;
  return `  ${word}_${state.unique++}(${pick(state, WORDS)});`;
}

function edit(state: State, lines: readonly string[]): string[] {
  const next = [...lines];
  const edits = 1 + Math.floor(state.random() * 4);
  for (let count = 0; count < edits; count++) {
    const at = Math.floor(state.random() * (next.length + 1));
    const roll = state.random();
    if (roll < 0.4 || next.length < 6) next.splice(at, 0, line(state));
    else if (roll < 0.55) {
      // Duplicate a block of existing lines elsewhere: identical runs make diffs ambiguous.
      const from = Math.floor(state.random() * next.length);
      next.splice(at, 0, ...next.slice(from, from + 1 + Math.floor(state.random() * 4)));
    } else if (roll < 0.75) next.splice(Math.min(at, next.length - 1), 1 + Math.floor(state.random() * 2));
    else next[Math.min(at, next.length - 1)] = line(state);
  }
  return next;
}

function header(state: State, ref: string, message: string, from?: number): string {
  state.mark++;
  // Committer dates mostly rise, sometimes repeat or step back (clock skew), as in real histories.
  const roll = state.random();
  state.time += roll < 0.05 ? 0 : roll < 0.08 ? -300 : 60 + Math.floor(state.random() * 5000);
  const author = pick(state, AUTHORS);
  const email = `${author.split(" ")[0]?.toLowerCase()}@example.com`;
  const who = `${author} <${email}> ${state.time} +0000`;
  return `commit ${ref}\nmark :${state.mark}\nauthor ${who}\ncommitter ${who}\n${data(message)}${from === undefined ? "" : `from :${from}\n`}`;
}

function message(state: State): string {
  const verb = pick(state, ["fix", "add", "refactor", "speed up", "document", "clean up", "Revert"]);
  return `${verb} ${pick(state, WORDS)}${state.random() < 0.1 ? ` (#${state.unique % 997})` : ""}\n\nTouches ${pick(state, WORDS)}.`;
}

/** Changes one to three files of `tree` (sometimes many), returning the fast-import file commands. */
function changeFiles(state: State, tree: Tree, many = false): string {
  let body = "";
  const paths = [...tree.keys()];
  const count = many ? 120 + Math.floor(state.random() * 300) : 1 + Math.floor(state.random() * 3);
  for (let index = 0; index < count; index++) {
    const path = pick(state, paths);
    const lines = edit(state, tree.get(path) ?? []);
    tree.set(path, lines);
    body += `M 100644 inline ${path}\n${data(content(lines))}`;
  }
  return body;
}

function renameFile(state: State, tree: Tree): string {
  const paths = [...tree.keys()].filter((path) => !path.startsWith("docs/"));
  const from = pick(state, paths);
  const name = from.slice(from.lastIndexOf("/") + 1);
  // Half keep the basename in a new directory, half get a new name too.
  const to =
    state.random() < 0.5
      ? `${pick(state, DIRECTORIES)}/${name}`
      : `${pick(state, DIRECTORIES)}/${pick(state, WORDS)}-${state.renames}.ts`;
  if (tree.has(to) || to === from) return "";
  const lines = tree.get(from) ?? [];
  tree.delete(from);
  state.renames++;
  // Some renames also edit the file (git pairs them by similarity), some are exact.
  const next = state.random() < 0.5 ? edit(state, lines) : lines;
  tree.set(to, next);
  return `D ${from}\nM 100644 inline ${to}\n${data(content(next))}`;
}

function addOrDelete(state: State, tree: Tree): string {
  if (state.random() < 0.5 && tree.size > 50) {
    const path = pick(state, [...tree.keys()]);
    tree.delete(path);
    return `D ${path}\n`;
  }
  const path = `${pick(state, DIRECTORIES)}/new-${state.unique++}.ts`;
  const lines = Array.from({ length: 5 + Math.floor(state.random() * 30) }, () => line(state));
  tree.set(path, lines);
  return `M 100644 inline ${path}\n${data(content(lines))}`;
}

function mainCommit(state: State, main: Tree): void {
  const roll = state.random();
  const body =
    roll < 0.04 ? renameFile(state, main) : roll < 0.07 ? addOrDelete(state, main) : changeFiles(state, main, roll > 0.997);
  state.chunks.push(`${header(state, "refs/heads/main", message(state))}${body}`);
}

/** A topic branch: a few commits beside the main line, then a merge whose result mixes both sides. */
function topic(state: State, main: Tree, number: number): void {
  const base = state.mark;
  const before = new Map(main);
  const side: Tree = new Map(main);
  const ref = `refs/heads/topic-${number}`;
  const steps = 1 + Math.floor(state.random() * 4);
  let sideMark = base;
  for (let step = 0; step < steps; step++) {
    state.chunks.push(`${header(state, ref, message(state), step === 0 ? base : undefined)}${changeFiles(state, side)}`);
    sideMark = state.mark;
    if (state.random() < 0.7) mainCommit(state, main);
  }
  let body = "";
  for (const [path, lines] of side) {
    const sideChanged = before.get(path) !== lines;
    const mainChanged = main.get(path) !== before.get(path);
    if (!sideChanged || !main.has(path)) continue;
    // Both changed: resolve to the side's version, or (sometimes) edit it again in the merge.
    const merged = mainChanged && state.random() < 0.3 ? edit(state, lines) : lines;
    main.set(path, merged);
    body += `M 100644 inline ${path}\n${data(content(merged))}`;
  }
  const subject = `Merge branch 'topic-${number}'`;
  state.chunks.push(`${header(state, "refs/heads/main", subject)}merge :${sideMark}\n${body}`);
  state.merges++;
}

/**
 * Writes a deterministic long history into the empty repository at `directory` with
 * `git fast-import`: seven authors, topic branches merged back (some merges equal to one side for
 * a path, some resolving both), exact and edited renames, added and deleted files, a few commits
 * touching hundreds of files, clock skew, and many identical lines, so every git tool meets the
 * cases where a naive answer differs from git's.
 */
export function writeLongHistory(directory: string, options: LongHistoryOptions = {}): LongHistory {
  const state: State = {
    random: generator(options.seed ?? 11),
    chunks: [],
    mark: 0,
    time: 1_600_000_000,
    merges: 0,
    renames: 0,
    unique: 0,
  };
  const main: Tree = new Map();
  let body = "";
  for (let index = 0; index < (options.files ?? 400); index++) {
    const path = `${DIRECTORIES[index % DIRECTORIES.length]}/${WORDS[index % WORDS.length]}-${index}.ts`;
    // Every tenth file is long, so diffs meet git's common-tail trimming (1 KiB blocks).
    const length = index % 10 === 0 ? 150 + Math.floor(state.random() * 250) : 10 + Math.floor(state.random() * 40);
    const lines = Array.from({ length }, () => line(state));
    main.set(path, lines);
    body += `M 100644 inline ${path}\n${data(content(lines))}`;
  }
  state.chunks.push(`${header(state, "refs/heads/main", "initial import")}${body}`);
  const total = options.commits ?? 3000;
  let topics = 0;
  while (state.mark < total) {
    if (state.random() < 0.06 && total - state.mark > 12) topic(state, main, topics++);
    else mainCommit(state, main);
  }
  const result = spawnSync("git", ["fast-import", "--quiet"], {
    cwd: directory,
    input: state.chunks.join(""),
    maxBuffer: 256 * 1024 * 1024,
    env: gitMallocEnvironment(),
  });
  if (result.status !== 0) throw new Error(`git fast-import failed: ${result.stderr.toString()}`);
  const checkout = spawnSync("git", ["reset", "-q", "--hard", "main"], { cwd: directory });
  if (checkout.status !== 0) throw new Error(`git reset failed: ${checkout.stderr.toString()}`);
  const paths = [...main.keys()].sort();
  const directories = [...new Set(paths.map((path) => path.slice(0, path.lastIndexOf("/"))))].sort();
  return { commits: state.mark, merges: state.merges, renames: state.renames, paths, directories };
}
