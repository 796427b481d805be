import { git } from "./git-fixture.js";

/** What the git CLI answers, parsed, for comparing with the tools. */

const FULL_ID = /^[0-9a-f]{40}$/;

/** The commit ids a `git log` prints with `--format=%H` (other output lines ignored). */
export function logIds(directory: string, args: readonly string[]): string[] {
  return git(directory, ["log", "--format=%H", ...args])
    .split("\n")
    .filter((line) => FULL_ID.test(line));
}

/** Commits whose first-parent diff touches `path` (every parent followed, no simplification). */
export function commitsTouching(directory: string, path: string): Set<string> {
  const output = git(directory, [
    "log",
    "--full-history",
    "--diff-merges=first-parent",
    "--no-renames",
    "--raw",
    "--format=%x01%H",
    "--",
    path,
  ]);
  const touching = new Set<string>();
  for (const block of output.split("\u0001").slice(1)) {
    const [id = "", ...rest] = block.split("\n");
    if (rest.some((line) => line.startsWith(":"))) touching.add(id);
  }
  return touching;
}

/** One `--numstat` line. */
export interface NumstatEntry {
  readonly path: string;
  readonly added: number | undefined;
  readonly removed: number | undefined;
}

function parseNumstatLine(line: string): NumstatEntry {
  const [added = "", removed = "", ...rest] = line.split("\t");
  const raw = rest.join("\t");
  // Renames print as "old => new" or "dir/{old => new}/rest".
  const braces = /^(.*)\{(.*) => (.*)\}(.*)$/.exec(raw);
  const arrow = /^(.*) => (.*)$/.exec(raw);
  const path =
    braces !== null ? `${braces[1]}${braces[3]}${braces[4]}`.replace("//", "/") : arrow !== null ? (arrow[2] ?? raw) : raw;
  return { path, added: added === "-" ? undefined : Number(added), removed: removed === "-" ? undefined : Number(removed) };
}

/** `git log` blocks: each commit id with its `--numstat` lines. */
export function logNumstat(
  directory: string,
  args: readonly string[],
): { id: string; header: string[]; files: NumstatEntry[] }[] {
  const output = git(directory, ["log", "--numstat", ...args]);
  return output
    .split("\u0001")
    .slice(1)
    .map((block) => {
      const lines = block.split("\n");
      const header = (lines[0] ?? "").split("\u0000");
      const files = lines
        .slice(1)
        .filter((line) => /^(\d+|-)\t(\d+|-)\t/.test(line))
        .map(parseNumstatLine);
      return { id: header[0] ?? "", header, files };
    });
}

/** `git blame --porcelain`: the commit of each final line number. */
export function blameIds(directory: string, revision: string, path: string, from: number, to: number): Map<number, string> {
  return porcelainBlameIds(git(directory, ["blame", "--porcelain", "-L", `${from},${to}`, revision, "--", path]));
}

/** The commit of each final line number in `git blame --porcelain`'s output. */
export function porcelainBlameIds(output: string): Map<number, string> {
  const lines = new Map<number, string>();
  for (const line of output.split("\n")) {
    const match = /^([0-9a-f]{40}) (\d+) (\d+)/.exec(line);
    if (match !== null) lines.set(Number(match[3]), match[1] ?? "");
  }
  return lines;
}

/** `git diff --numstat -M` between two revisions. */
export function diffNumstat(directory: string, from: string, to: string, path?: string): NumstatEntry[] {
  const args = ["diff", "--numstat", "-M", from, to, ...(path === undefined ? [] : ["--", path])];
  return git(directory, args)
    .split("\n")
    .filter((line) => line !== "")
    .map(parseNumstatLine);
}

/** `git diff --name-status -M` between two revisions: status letter (R without score) and path. */
export function diffNameStatus(
  directory: string,
  from: string,
  to: string,
): { status: string; path: string; previous?: string }[] {
  return git(directory, ["diff", "--name-status", "-M", from, to])
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [status = "", first = "", second] = line.split("\t");
      return second === undefined
        ? { status: status.slice(0, 1), path: first }
        : { status: status.slice(0, 1), path: second, previous: first };
    });
}

/** Contributor totals the way the tool defines them, computed from `git log --numstat`. */
export function contributorTotals(directory: string, path?: string) {
  const pathArgs = path === undefined ? [] : ["--", path];
  const totals = new Map<string, { commits: number; merges: number; added: number; removed: number }>();
  // Default history simplification, as git shortlog -- <path> counts.
  const blocks = logNumstat(directory, ["--format=%x01%H%x00%ae%x00%P", ...pathArgs]);
  for (const block of blocks) {
    const email = (block.header[1] ?? "").toLowerCase();
    const merge = (block.header[2] ?? "").split(" ").length > 1;
    const total = totals.get(email) ?? { commits: 0, merges: 0, added: 0, removed: 0 };
    total.commits++;
    if (merge) total.merges++;
    else {
      for (const file of block.files) {
        total.added += file.added ?? 0;
        total.removed += file.removed ?? 0;
      }
    }
    totals.set(email, total);
  }
  return totals;
}
