import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { cp, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { seededRandom } from "../stats.js";

/** A multi-file unified diff and the tree it applies to. */
export interface MultiFileDiff {
  /** What the diff is: "generated" (uniform synthetic files) or "real" (real files, scripted edit). */
  readonly kind: "generated" | "real";
  /** Files the diff changes. */
  readonly files: number;
  /** The diff, as `git diff` printed it (a/ and b/ prefixes). */
  readonly diff: string;
  /** The tree before (relative path to content). */
  readonly before: ReadonlyMap<string, Buffer>;
}

function git(cwd: string, args: readonly string[]): string {
  const result = spawnSync("git", args, { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * The diff `git diff` prints between `before` and `after` (same paths), made in a scratch
 * repository under `scratch`: real hunks, real context, as a model or a developer would send.
 */
async function gitDiffOf(
  scratch: string,
  before: ReadonlyMap<string, Buffer>,
  after: ReadonlyMap<string, Buffer>,
): Promise<string> {
  await mkdir(scratch, { recursive: true });
  git(scratch, ["init", "-q"]);
  for (const [relative, content] of before) {
    await mkdir(path.dirname(path.join(scratch, relative)), { recursive: true });
    await writeFile(path.join(scratch, relative), content);
  }
  git(scratch, ["add", "-A"]);
  git(scratch, ["-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "commit", "-qm", "before"]);
  for (const [relative, content] of after) await writeFile(path.join(scratch, relative), content);
  return git(scratch, ["diff", "--no-color", "--no-ext-diff", "--no-renames"]);
}

/** The synthetic diff of earlier runs: `files` files of 120 lines, 3 one-line hunks each. */
export async function generatedDiff(scratch: string, files: number): Promise<MultiFileDiff> {
  const text = (index: number, changed: boolean) =>
    `${Array.from({ length: 120 }, (_, line) => {
      const value = `file ${index} line ${line} ${"lorem ipsum ".repeat(3)}${(line * 7919) % 101}`;
      return changed && line % 40 === 20 ? `${value} CHANGED` : value;
    }).join("\n")}\n`;
  const before = new Map<string, Buffer>();
  const after = new Map<string, Buffer>();
  for (let index = 0; index < files; index++) {
    const name = `src/m${index % 20}/f${index}.txt`;
    before.set(name, Buffer.from(text(index, false)));
    after.set(name, Buffer.from(text(index, true)));
  }
  return { kind: "generated", files, diff: await gitDiffOf(scratch, before, after), before };
}

/** Text source files under `directory` (sorted walk): no NUL byte, valid UTF-8, between 2 KiB and 256 KiB. */
function sourceFiles(directory: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    const entries = readdirSync(path.join(directory, relative), { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    for (const entry of entries) {
      const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory() && entry.name !== ".cache" && entry.name !== ".bin") walk(child);
      else if (entry.isFile() && /\.(?:[cm]?js|ts|md|json|map)$/.test(entry.name)) {
        const size = statSync(path.join(directory, child)).size;
        if (size >= 2048 && size <= 256 * 1024) found.push(child);
      }
    }
  };
  walk("");
  return found;
}

/**
 * A scripted edit of a real file, as a refactoring would make: a few lines changed, one
 * removed, one added, at positions drawn from a seeded generator (the same every run).
 */
function scriptedEdit(content: string, seed: number): string {
  const random = seededRandom(seed);
  const lines = content.split("\n");
  const edits = 6 + Math.floor(random() * 15);
  for (let edit = 0; edit < edits && lines.length > 4; edit++) {
    const at = Math.floor(random() * (lines.length - 1));
    const kind = random();
    // The text goes before a line's "\r": a CRLF file stays CRLF, as an editor keeps it.
    const line = lines[at] as string;
    const ending = line.endsWith("\r") ? "\r" : "";
    if (kind < 0.6) lines[at] = `${line.slice(0, line.length - ending.length)} // edited ${edit}${ending}`;
    else if (kind < 0.8) lines.splice(at, 1);
    else lines.splice(at, 0, `// added line ${edit} of ${seed}${ending}`);
  }
  return lines.join("\n");
}

/**
 * A real multi-file diff: `files` real source files of mixed sizes from `directory` (a
 * node_modules tree every checkout has after `npm ci`), picked evenly over the sorted walk,
 * each changed by a scripted edit, the diff printed by `git diff`.
 */
export async function realDiff(scratch: string, directory: string, files: number): Promise<MultiFileDiff> {
  const all = sourceFiles(directory);
  if (all.length < files) throw new Error(`only ${all.length} source files under ${directory}`);
  const step = all.length / files;
  const before = new Map<string, Buffer>();
  const after = new Map<string, Buffer>();
  for (let index = 0; index < files; index++) {
    const relative = all[Math.floor(index * step)] as string;
    const content = readFileSync(path.join(directory, relative));
    const text = content.toString("utf8");
    if (text.includes("\0") || Buffer.from(text).compare(content) !== 0) continue;
    // Under a directory not named node_modules: the tree is an ordinary workspace.
    const name = `vendor/${relative.replaceAll("node_modules/", "nm/")}`;
    before.set(name, content);
    after.set(name, Buffer.from(scriptedEdit(text, index + 1)));
  }
  return { kind: "real", files: before.size, diff: await gitDiffOf(scratch, before, after), before };
}

/** Writes the tree before the diff into `directory`. */
export async function writeTree(directory: string, tree: ReadonlyMap<string, Buffer>): Promise<void> {
  for (const [relative, content] of tree) {
    await mkdir(path.dirname(path.join(directory, relative)), { recursive: true });
    await writeFile(path.join(directory, relative), content);
  }
}

/** A copy of `from` at `to`. */
export async function copyTree(from: string, to: string): Promise<void> {
  await cp(from, to, { recursive: true });
}

/** One hash over every file of the tree (path and bytes), to compare two results byte for byte. */
export async function treeDigest(directory: string, paths: Iterable<string>): Promise<string> {
  const hash = createHash("sha256");
  for (const relative of [...paths].sort()) {
    hash.update(relative);
    hash.update("\0");
    hash.update(await readFile(path.join(directory, relative)));
    hash.update("\0");
  }
  return hash.digest("hex");
}
