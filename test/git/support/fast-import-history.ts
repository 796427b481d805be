import { spawnSync } from "node:child_process";
import { git, temporaryDirectory } from "./git-fixture.js";
import { gitMallocEnvironment } from "./git-malloc.js";

/**
 * Random histories written as one `git fast-import` stream (one process per repository, no
 * working tree): merges (octopus, criss-cross, evil), renames and copies with edits, a file and a
 * directory of one name replacing each other, binary, CRLF and unterminated files, odd path names
 * (spaces, quotes, a leading dash, a tab, unicode, bytes that are not UTF-8), empty commits,
 * identical content under many names, authors with odd characters, identical and skewed
 * timestamps in several zones. Seeded: the same seed gives the same stream, byte for byte.
 */

/** mulberry32: small, seeded, good enough to draw plans. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** Path names as raw bytes (fast-import's C-quoted form is written from them). */
export const FAST_IMPORT_PATHS: readonly Buffer[] = [
  "a.txt",
  "sp ace.txt",
  'q"uote.txt',
  "-dash.txt",
  "tab\there.txt",
  "ünï/ñame.txt",
  "d/b.txt",
  "d/e/c.txt",
  "d/copy.txt",
  "x",
  "x/inner.txt",
  "bin.dat",
].map((name) => Buffer.from(name));
/** A name that is not UTF-8 (Latin-1 é), only ever read in whole-repository answers. */
export const NON_UTF8_PATH = Buffer.from([0x6e, 0x6f, 0x6e, 0xe9, 0x2e, 0x74, 0x78, 0x74]);

const AUTHORS = [
  "Ann <ann@example.com>",
  "Ann Other <ann@example.com>",
  "Bö Ünïcode <bo@example.com>",
  "O'Brien, Jr. <OB@Example.COM>",
  '"Quoted" Name (x) <q@example.com>',
  "Zoë.  Spaced <zoe@example.com>",
];

const WORDS = ["alpha", "beta", "gamma", "return null;", "needle", "  indented", "}", "", "delta", "Ünïcode line"];

/** One file's bytes: lines from a small alphabet (so identical lines recur), CRLF, no final newline, or binary. */
function content(next: () => number): Buffer {
  const pick = next();
  if (pick < 0.08) return Buffer.from([0, 1, 2, Math.floor(next() * 256), 0, 10, 65]);
  if (pick < 0.12) return Buffer.alloc(0);
  const count = 1 + Math.floor(next() * 9);
  const crlf = next() < 0.15;
  const lines = Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)] as string);
  const text = lines.join(crlf ? "\r\n" : "\n") + (next() < 0.2 ? "" : crlf ? "\r\n" : "\n");
  return Buffer.from(text);
}

/** An edit of `old`: a line or two changed, added or removed (so renames stay similar). */
function edit(old: Buffer, next: () => number): Buffer {
  if (old.includes(0) || old.length === 0 || next() < 0.1) return content(next);
  const lines = old.toString("utf8").split("\n");
  const at = Math.floor(next() * lines.length);
  const pick = next();
  const word = WORDS[Math.floor(next() * WORDS.length)] as string;
  if (pick < 0.4) lines.splice(at, 0, word);
  else if (pick < 0.7) lines[at] = word;
  else if (lines.length > 1) lines.splice(at, 1);
  else lines.push(word);
  return Buffer.from(lines.join("\n"));
}

/** fast-import's quoted path: every byte outside printable ASCII (and `"` `\`) as an octal escape. */
function quote(name: Buffer): string {
  let out = '"';
  for (const byte of name) {
    if (byte === 0x22 || byte === 0x5c) out += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte >= 0x7f) out += `\\${byte.toString(8).padStart(3, "0")}`;
    else out += String.fromCharCode(byte);
  }
  return `${out}"`;
}

type Tree = Map<string, Buffer>; // key: path bytes as latin1 (one char per byte)
const key = (name: Buffer) => name.toString("latin1");
const bytes = (name: string) => Buffer.from(name, "latin1");

/** One element of `list`, drawn with `next`. */
function pick<T>(next: () => number, list: readonly T[]): T {
  return list[Math.floor(next() * list.length)] as T;
}

/** Makes room for `name`: a file and a directory of one name cannot coexist, so writing one removes the other. */
function conflictFree(tree: Tree, name: Buffer): void {
  const text = key(name);
  for (const existing of [...tree.keys()]) {
    if (existing.startsWith(`${text}/`) || text.startsWith(`${existing}/`)) tree.delete(existing);
  }
}

/**
 * A merge's tree (octopus with three or more sides): the union of the sides, each path both have
 * taken from a random one, sometimes an evil edit on top.
 */
function mergeSides(tree: Tree, sides: readonly Tree[], next: () => number): void {
  for (const side of sides) {
    for (const [name, body] of side) {
      if (!tree.has(name) || next() < 0.5) {
        conflictFree(tree, bytes(name));
        tree.set(name, body);
      }
    }
  }
  if (next() < 0.2) {
    const name = pick(next, [...tree.keys()]);
    if (name !== undefined) tree.set(name, edit(tree.get(name) as Buffer, next));
  }
}

/** One ordinary commit's changes (none now and then: an empty commit): writes, deletions, renames and copies, exact or edited. */
function editTree(tree: Tree, next: () => number): void {
  const edits = next() < 0.1 ? 0 : 1 + Math.floor(next() * 3);
  for (let index = 0; index < edits; index++) {
    const kind = next();
    const existing = [...tree.keys()];
    const source = existing.length === 0 ? undefined : pick(next, existing);
    const target = pick(next, FAST_IMPORT_PATHS);
    if (kind < 0.35 || source === undefined) {
      conflictFree(tree, target);
      tree.set(key(target), tree.has(key(target)) ? edit(tree.get(key(target)) as Buffer, next) : content(next));
    } else if (kind < 0.5) tree.delete(source);
    else {
      const body = tree.get(source) as Buffer;
      // A rename (the source deleted), a copy, or identical content under another name with the source edited.
      if (kind < 0.7) tree.delete(source);
      conflictFree(tree, target);
      if (kind < 0.85) tree.set(key(target), next() < 0.5 ? body : edit(body, next));
      else {
        tree.set(key(target), body);
        // The source may be gone: a file and a directory of one name cannot both stay.
        if (tree.has(source)) tree.set(source, edit(body, next));
      }
    }
  }
}

/** What one generated repository is: its stream (printed on failure) and where it is. */
export interface FastImportHistory {
  readonly seed: number;
  readonly stream: Buffer;
  readonly directory: string;
  /** Path names (as UTF-8 strings) any commit wrote: the files and directories to ask about. */
  readonly paths: readonly string[];
}

/** The stream for `seed` (about `commits` commits on up to four branches; HEAD is main). */
export function fastImportStream(seed: number, commits = 12): { stream: Buffer; paths: Set<string> } {
  const next = random(seed);
  const chunks: Buffer[] = [];
  const write = (text: string | Buffer) => chunks.push(typeof text === "string" ? Buffer.from(text) : text);
  const data = (body: Buffer) => {
    write(`data ${body.length}\n`);
    write(body);
    write("\n");
  };
  const trees = new Map<number, Tree>(); // by mark
  const heads = new Map<string, number>(); // branch -> mark
  const paths = new Set<string>();
  let mark = 0;
  let clock = 1_700_000_000;
  const zones = ["+0000", "+0100", "-0700", "+0530", "+1400"];
  const choose = <T>(list: readonly T[]) => pick(next, list);

  const commit = (branch: string, parents: number[], build: (tree: Tree) => void, message: string) => {
    const base = parents[0];
    const tree: Tree = new Map(base === undefined ? [] : trees.get(base));
    build(tree);
    mark++;
    const pick = next();
    clock += pick < 0.35 ? 0 : pick < 0.45 ? -3600 * Math.floor(1 + next() * 48) : Math.floor(1 + next() * 90_000);
    const zone = choose(zones);
    const who = choose(AUTHORS);
    write(`commit refs/heads/${branch}\nmark :${mark}\n`);
    write(`author ${who} ${clock} ${zone}\ncommitter ${next() < 0.3 ? choose(AUTHORS) : who} ${clock} ${zone}\n`);
    data(Buffer.from(message));
    if (base !== undefined) write(`from :${base}\n`);
    for (const other of parents.slice(1)) write(`merge :${other}\n`);
    // The whole tree each time (deleteall then every file): what fast-import commits is exactly `tree`.
    write("deleteall\n");
    for (const [name, body] of [...tree.entries()].sort()) {
      write(`M 100644 inline ${quote(bytes(name))}\n`);
      data(body);
    }
    write("\n");
    trees.set(mark, tree);
    heads.set(branch, mark);
    return mark;
  };

  const messages = [
    "Fix needle handling",
    "refactor: NEEDLE in caps",
    "no trailing newline",
    "Ünïcode naïve message\n\nbody with needle",
    "multi\nline\nsubject",
    "",
    "empty-ish",
  ];

  // Root commit on main.
  commit(
    "main",
    [],
    (tree) => {
      for (let index = 0; index < 4; index++) {
        const name = choose(FAST_IMPORT_PATHS);
        conflictFree(tree, name);
        tree.set(key(name), content(next));
      }
      if (next() < 0.5) tree.set(key(NON_UTF8_PATH), content(next));
    },
    `root ${choose(messages)}\n`,
  );
  for (let step = 1; step < commits; step++) {
    const branches = [...heads.keys()];
    const op = next();
    if (op < 0.15 && heads.size < 4) {
      // A new branch from some earlier commit.
      const from = 1 + Math.floor(next() * mark);
      const name = `side-${heads.size}`;
      commit(
        name,
        [from],
        (tree) => tree.set(key(choose(FAST_IMPORT_PATHS.filter((p) => !key(p).startsWith("x")))), content(next)),
        `branch ${choose(messages)}`,
      );
      continue;
    }
    if (op < 0.35 && branches.length > 1) {
      // A merge (octopus with three or more branches now and then): the union of the sides, each
      // conflicting path taken from a random side, sometimes an evil edit on top.
      const into = choose(branches);
      const others = branches.filter((branch) => branch !== into && next() < 0.6);
      if (others.length === 0) others.push(choose(branches.filter((branch) => branch !== into)));
      const parents = [heads.get(into) as number, ...others.map((branch) => heads.get(branch) as number)];
      if (new Set(parents).size !== parents.length) continue;
      commit(
        into,
        parents,
        (tree) =>
          mergeSides(
            tree,
            parents.slice(1).map((other) => trees.get(other) ?? new Map()),
            next,
          ),
        `Merge ${others.join(", ")} into ${into}${next() < 0.3 ? " needle" : ""}\n`,
      );
      continue;
    }
    const branch = choose(branches);
    commit(branch, [heads.get(branch) as number], (tree) => editTree(tree, next), choose(messages) + (next() < 0.5 ? "\n" : ""));
  }
  for (const name of FAST_IMPORT_PATHS) paths.add(name.toString("utf8"));
  return { stream: Buffer.concat(chunks), paths };
}

/** Builds the repository of `seed` in a new temporary directory (one `git init`, one `git fast-import`). */
export function buildFastImportHistory(seed: number, commits = 12): FastImportHistory {
  const { stream, paths } = fastImportStream(seed, commits);
  const directory = temporaryDirectory("fast-import");
  git(directory, ["init", "-q", "-b", "main"]);
  const result = spawnSync("git", ["fast-import", "--quiet", "--date-format=raw"], {
    cwd: directory,
    input: stream,
    env: gitMallocEnvironment(),
  });
  if (result.status !== 0) throw new Error(`fast-import failed (seed ${seed}): ${result.stderr.toString()}`);
  const directories = new Set<string>();
  for (const file of paths) {
    const parts = file.split("/");
    for (let index = 1; index < parts.length; index++) directories.add(parts.slice(0, index).join("/"));
  }
  return { seed, stream, directory, paths: [...paths, ...directories] };
}
