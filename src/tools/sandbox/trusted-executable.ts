import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { ownershipProblem } from "./ownership.js";
import { isInsideDirectory } from "./workspace-root.js";

/** Options of {@link findTrustedExecutable}. */
export interface TrustedExecutableOptions {
  /** The host's `PATH`. @defaultValue `process.env.PATH` */
  readonly searchPath?: string;
  /** Directories a candidate must not be inside (the workspace: the model can write there). */
  readonly untrustedRoots?: readonly string[];
  /**
   * User ids allowed to own the file and every directory above it.
   * @defaultValue `[0]` (root)
   */
  readonly owners?: readonly number[];
}

/** Where an executable was found, or why no trusted copy was. */
export type TrustedExecutableResult =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Every workspace a process sandbox was made for in this process, shared by the ESM and CommonJS
 * copies of the package (a registry key on `globalThis`). A command sandboxed by bubblewrap that a
 * host started as root makes files the host sees as root's, so "root-owned" does not keep a file a
 * model wrote out of a lookup: a `PATH` entry inside any such workspace (`/srv/a/.venv/bin`, also
 * another run's workspace than the one asking) is never trusted.
 */
function sandboxedWorkspaces(): Set<string> {
  const registry = globalThis as { [WORKSPACES]?: Set<string> };
  registry[WORKSPACES] ??= new Set<string>();
  return registry[WORKSPACES];
}

const WORKSPACES = Symbol.for("agent-tool-catalog.sandboxed-workspaces");

/**
 * Records a workspace a process sandbox confines commands to: no executable inside it is trusted
 * by {@link findTrustedExecutable} from then on, whoever asks.
 * @internal
 */
export function noteSandboxedWorkspace(root: string): void {
  const resolved = path.resolve(root);
  // A workspace holding the system's own binaries (`/`, `/usr`): the sandbox binds those read-only,
  // and distrusting them would leave no shell at all.
  if (SYSTEM_BIN_DIRECTORIES.some((directory) => isInsideDirectory(resolved, directory))) return;
  sandboxedWorkspaces().add(resolved);
}

/** Searched after `PATH`, so a host with an odd `PATH` still finds system binaries. */
const SYSTEM_BIN_DIRECTORIES: readonly string[] = ["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/**
 * Finds `name` on `PATH` as an absolute path that no sandboxed command (and no unprivileged user)
 * can replace: the `PATH` entry is absolute, the file is a regular executable, and the file and
 * every directory above it (through symbolic links, checked on the real path and on the path as
 * given) are owned by root (or one of `owners`), are not writable by group or others, and lie
 * outside the workspace. A relative `PATH` entry such as `./node_modules/.bin` or a writable
 * directory earlier on `PATH` is skipped, never used: a model that can write there would
 * otherwise choose what the host runs as "the sandbox".
 *
 * It runs once, when a sandbox is built, so a later change to `PATH` or to the workspace cannot
 * change which binary is run.
 */
export function findTrustedExecutable(name: string, options: TrustedExecutableOptions = {}): TrustedExecutableResult {
  const owners = options.owners ?? [0];
  const untrusted = [...(options.untrustedRoots ?? []), ...sandboxedWorkspaces()];
  const rejected: string[] = [];
  if (name.includes("/")) {
    const problem = distrust(name, owners, untrusted);
    return problem === undefined ? { ok: true, path: realpathSync(name) } : { ok: false, reason: problem };
  }
  const entries = (options.searchPath ?? process.env.PATH ?? "").split(path.delimiter);
  const seen = new Set<string>();
  for (const directory of [...entries, ...SYSTEM_BIN_DIRECTORIES]) {
    if (seen.has(directory)) continue;
    seen.add(directory);
    if (directory === "" || !path.isAbsolute(directory)) {
      if (directory !== "") rejected.push(`${JSON.stringify(directory)} (relative PATH entry)`);
      continue;
    }
    const candidate = path.join(directory, name);
    if (!isExecutableFile(candidate)) continue;
    const problem = distrust(candidate, owners, untrusted);
    if (problem === undefined) return { ok: true, path: realpathSync(candidate) };
    rejected.push(problem);
  }
  const skipped = rejected.length === 0 ? "" : ` Skipped: ${rejected.join("; ")}.`;
  return { ok: false, reason: `no trusted ${name} was found on PATH or in ${SYSTEM_BIN_DIRECTORIES.join(", ")}.${skipped}` };
}

function realPathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

function isExecutableFile(candidate: string): boolean {
  try {
    if (!statSync(candidate).isFile()) return false;
    accessSync(candidate, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Why `candidate` is not trustworthy, or `undefined` when it is. */
function distrust(candidate: string, owners: readonly number[], untrusted: readonly string[]): string | undefined {
  if (!path.isAbsolute(candidate)) return `${candidate} is not an absolute path`;
  let real: string;
  try {
    real = realpathSync(candidate);
  } catch {
    return `${candidate} does not exist`;
  }
  if (!isExecutableFile(real)) return `${candidate} is not an executable file`;
  for (const root of untrusted) {
    // The workspace as given and as its real path: a sandboxed command can write anything below it.
    const roots = new Set([path.resolve(root), realPathOr(root)]);
    for (const directory of roots) {
      if (isInsideDirectory(directory, candidate) || isInsideDirectory(directory, real))
        return `${candidate} is inside the workspace`;
    }
  }
  // Both the path as written (its directories may be symlinks someone else controls) and the real path.
  for (const target of new Set([real, candidate])) {
    for (let current = target; ; current = path.dirname(current)) {
      const problem = unsafeOwnership(current, owners);
      if (problem !== undefined) return `${candidate}: ${problem}`;
      if (current === path.dirname(current)) break;
    }
  }
  return undefined;
}

function unsafeOwnership(file: string, owners: readonly number[]): string | undefined {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(file);
  } catch {
    return `${file} cannot be inspected`;
  }
  const problem = ownershipProblem(stats, owners);
  if (problem === "foreign_owner") return `${file} is owned by uid ${stats.uid}`;
  if (problem === "shared_write") return `${file} is writable by group or others`;
  return undefined;
}
