// Shared by the crash-recovery red-team tests: a workspace with a directory outside it, a dead
// writer's change log planted in the workspace's intent directory, file-tool runs over it, and
// whether `chattr +i` can be used to make a directory refuse changes.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { intentDirectory } from "../../../src/tools/fs/intent-log.js";

/** A fresh `base` holding the workspace `ws` and the directory `out` beside it. */
export interface RecoveryFixture {
  readonly base: string;
  readonly root: string;
  readonly outside: string;
}

/** Makes the fixture's directories (`prefix` names the temporary base). */
export async function makeRecoveryFixture(prefix: string): Promise<RecoveryFixture> {
  const base = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  const fixture = { base, root: path.join(base, "ws"), outside: path.join(base, "out") };
  await mkdir(fixture.root);
  await mkdir(fixture.outside);
  return fixture;
}

/** Removes the fixture and the workspace's intent directory. */
export async function removeRecoveryFixture(fixture: RecoveryFixture): Promise<void> {
  await rm(fixture.base, { recursive: true, force: true });
  await rm(intentDirectory(fixture.root), { recursive: true, force: true });
}

/** A file's text, or `"absent"`. */
export const readOrAbsent = (file: string): Promise<string> => readFile(file, "utf8").catch(() => "absent");

/** A run of the file tools over `root` under `sandbox`. */
export const fileToolsRun = (root: string, sandbox: "workspace" | "unrestricted"): Run =>
  createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace: root } });

/** One entry of a planted log, as the intent log writes it. */
export interface PlantedEntry {
  readonly directory: string;
  readonly name: string;
  readonly temporary?: string;
  readonly created: readonly string[];
}

/** Writes the change log a writer (a process that has exited) left in `root`'s intent directory; returns its path. */
export async function plantDeadWritersLog(
  root: string,
  state: "committed" | "prepared",
  entries: readonly PlantedEntry[],
): Promise<string> {
  const dead = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  const intents = intentDirectory(root);
  await mkdir(intents, { recursive: true, mode: 0o700 });
  const log = path.join(intents, `${dead}-000000000000.json`);
  await writeFile(log, JSON.stringify({ owner: `${dead}:?`, root, state, entries }), { mode: 0o600 });
  return log;
}

/**
 * Whether `chattr +i` works on a directory made in `parent` (root, on a file system with the
 * immutable flag such as ext4; not tmpfs).
 */
export function canMakeImmutable(parent: string): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = path.join(parent, `atc-immutable-probe-${process.pid}`);
  try {
    execFileSync("mkdir", ["-p", probe]);
    execFileSync("chattr", ["+i", probe], { stdio: "ignore" });
    execFileSync("chattr", ["-i", probe], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    try {
      execFileSync("chattr", ["-i", probe], { stdio: "ignore" });
    } catch {
      // No chattr, or no flag to lift.
    }
    execFileSync("rm", ["-rf", probe]);
  }
}
