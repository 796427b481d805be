import { spawnSync } from "node:child_process";
import { seededRandom } from "../stats.js";

/** The shape of a generated history. */
export interface SyntheticHistoryOptions {
  /** Commits on the main line and on side branches together. @defaultValue 10000 */
  readonly commits?: number;
  /** Text files in the first commit. @defaultValue 240 */
  readonly files?: number;
  /** Seed of the pseudo-random choices, so every run builds the same repository. @defaultValue 7 */
  readonly seed?: number;
}

/** What the generator put into the repository, for picking benchmark queries that hit. */
export interface SyntheticHistory {
  /** Commits written, merges included. */
  readonly commits: number;
  /** Merge commits among them. */
  readonly merges: number;
  /** Renames among them. */
  readonly renames: number;
  /** A text file that exists at the tip and has a long history. */
  readonly busyFile: string;
  /** A token that a handful of commits add or remove (a good pickaxe query). */
  readonly rareToken: string;
  /** A word that appears in some commit messages. */
  readonly messageWord: string;
}

const AUTHORS = ["Ada Lovelace", "Alan Turing", "Grace Hopper", "Edsger Dijkstra", "Barbara Liskov", "Donald Knuth"];
const WORDS = ["parser", "cache", "index", "router", "config", "logger", "client", "server", "schema", "worker"];
const VERBS = ["fix", "add", "refactor", "speed up", "document", "clean up"];

interface State {
  readonly random: () => number;
  readonly main: Map<string, string[]>;
  readonly chunks: string[];
  mark: number;
  time: number;
  merges: number;
  renames: number;
  tokenCount: number;
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;

function fileContent(lines: readonly string[]): string {
  return `${lines.join("\n")}\n`;
}

function newLine(state: State): string {
  const word = pick(state.random, WORDS);
  if (state.random() < 0.004) {
    state.tokenCount++;
    return `  const rare = "RARE_TOKEN"; // ${word}`;
  }
  return `  ${word}_${Math.floor(state.random() * 100_000)}(${pick(state.random, WORDS)});`;
}

function editLines(state: State, lines: string[]): string[] {
  const next = [...lines];
  const edits = 1 + Math.floor(state.random() * 3);
  for (let edit = 0; edit < edits; edit++) {
    const at = Math.floor(state.random() * (next.length + 1));
    const roll = state.random();
    if (roll < 0.45 || next.length < 10) next.splice(at, 0, newLine(state));
    else if (roll < 0.7) next.splice(Math.min(at, next.length - 1), 1);
    else next[Math.min(at, next.length - 1)] = newLine(state);
  }
  return next;
}

function commitHeader(state: State, ref: string, message: string): string {
  state.mark++;
  state.time += 600 + Math.floor(state.random() * 3000);
  const author = pick(state.random, AUTHORS);
  const email = `${author.split(" ")[0]?.toLowerCase()}@example.com`;
  const who = `${author} <${email}> ${state.time} +0000`;
  return `commit ${ref}\nmark :${state.mark}\nauthor ${who}\ncommitter ${who}\n${data(message)}`;
}

function message(state: State): string {
  const issue = state.random() < 0.1 ? ` (#${Math.floor(state.random() * 900) + 100})` : "";
  return `${pick(state.random, VERBS)} ${pick(state.random, WORDS)}${issue}\n\nTouches the ${pick(state.random, WORDS)} code.`;
}

/** One ordinary commit on `ref` that edits files of `tree` whose index has the given parity. */
function editCommit(state: State, ref: string, tree: Map<string, string[]>, parity: number, from?: number): void {
  const paths = [...tree.keys()].filter((_, index) => index % 2 === parity);
  let body = commitHeader(state, ref, message(state));
  if (from !== undefined) body += `from :${from}\n`;
  const touched = 1 + Math.floor(state.random() * 2);
  for (let count = 0; count < touched; count++) {
    const path = pick(state.random, paths);
    const lines = editLines(state, tree.get(path) ?? []);
    tree.set(path, lines);
    body += `M 100644 inline ${path}\n${data(fileContent(lines))}`;
  }
  if (ref === "refs/heads/main" && state.random() < 0.01) body += `M 100644 inline assets/logo.bin\n${data(binary(state))}`;
  state.chunks.push(body);
}

function binary(state: State): string {
  return `\u0000PNG${Math.floor(state.random() * 1e9)}\u0000`;
}

function renameCommit(state: State): void {
  const paths = [...state.main.keys()].filter((path) => path.startsWith("src/"));
  const path = pick(state.random, paths);
  const target = path.replace(/\.ts$/, `-${state.renames}.ts`).replace("src/", "lib/");
  const lines = state.main.get(path) ?? [];
  state.main.delete(path);
  state.main.set(target, lines);
  state.renames++;
  state.chunks.push(`${commitHeader(state, "refs/heads/main", `move ${path} to ${target}`)}R ${path} ${target}\n`);
}

/** A side branch of three commits, interleaved with main-line commits, then merged with --no-ff. */
function branchAndMerge(state: State, branch: number): void {
  const base = state.mark;
  const side = new Map([...state.main].map(([path, lines]) => [path, [...lines]]));
  const ref = `refs/heads/topic-${branch}`;
  const touched = new Set<string>();
  for (let step = 0; step < 3; step++) {
    const before = new Map([...side].map(([path, lines]) => [path, lines]));
    editCommit(state, ref, side, 1, step === 0 ? base : undefined);
    for (const [path, lines] of side) if (before.get(path) !== lines) touched.add(path);
    const sideMark = state.mark;
    editCommit(state, "refs/heads/main", state.main, 0);
    if (step === 2) {
      let body = `${commitHeader(state, "refs/heads/main", `Merge branch 'topic-${branch}'`)}merge :${sideMark}\n`;
      for (const path of touched) {
        const lines = side.get(path) ?? [];
        state.main.set(path, lines);
        body += `M 100644 inline ${path}\n${data(fileContent(lines))}`;
      }
      state.merges++;
      state.chunks.push(body);
    }
  }
}

function initialCommit(state: State, files: number): void {
  let body = commitHeader(state, "refs/heads/main", "initial import");
  for (let index = 0; index < files; index++) {
    const path = `src/${WORDS[index % WORDS.length]}/module-${index}.ts`;
    const lines = Array.from({ length: 30 + Math.floor(state.random() * 40) }, () => newLine(state));
    state.main.set(path, lines);
    body += `M 100644 inline ${path}\n${data(fileContent(lines))}`;
  }
  state.chunks.push(body);
}

/**
 * Writes a deterministic history into the (empty, initialised) repository at `directory` with
 * `git fast-import`: ordinary commits by six authors, side branches merged with merge commits, a
 * rename now and then, and a binary file. fast-import builds 10,000 commits in a few seconds,
 * where one `git commit` per commit would take minutes.
 */
export function writeSyntheticHistory(directory: string, options: SyntheticHistoryOptions = {}): SyntheticHistory {
  const total = options.commits ?? 10_000;
  const state: State = {
    random: seededRandom(options.seed ?? 7),
    main: new Map(),
    chunks: [],
    mark: 0,
    time: 1_577_836_800,
    merges: 0,
    renames: 0,
    tokenCount: 0,
  };
  initialCommit(state, options.files ?? 240);
  let branch = 0;
  while (state.mark < total) {
    const roll = state.random();
    if (roll < 0.04 && total - state.mark > 8) branchAndMerge(state, branch++);
    else if (roll < 0.045) renameCommit(state);
    else editCommit(state, "refs/heads/main", state.main, state.mark % 2);
  }
  const result = spawnSync("git", ["fast-import", "--quiet"], {
    cwd: directory,
    input: state.chunks.join(""),
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`git fast-import failed: ${result.stderr.toString()}`);
  const busyFile = [...state.main.keys()].find((path) => path.startsWith("src/")) ?? "src/parser/module-0.ts";
  return {
    commits: state.mark,
    merges: state.merges,
    renames: state.renames,
    busyFile,
    rareToken: "RARE_TOKEN",
    messageWord: "refactor",
  };
}
