import { readdirSync, readFileSync, readlinkSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";

/**
 * Removes a test's directory. When that fails because something still creates entries in it
 * (ENOTEMPTY, EBUSY), the error names the processes whose working directory, root or open files
 * are under it (from /proc), so that the race is diagnosable: the fix is then to stop and wait for
 * that writer before removing (test/support/stop-process.ts, background-loop.ts), never to retry
 * the removal.
 */
export async function removeTree(directory: string): Promise<void> {
  try {
    await rm(directory, { recursive: true, force: true });
  } catch (error) {
    throw explained(error, directory);
  }
}

/** {@link removeTree}, synchronous (for a synchronous afterEach). */
export function removeTreeSync(directory: string): void {
  try {
    rmSync(directory, { recursive: true, force: true });
  } catch (error) {
    throw explained(error, directory);
  }
}

function explained(error: unknown, directory: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== "ENOTEMPTY" && code !== "EBUSY") return error;
  const holders = processesUnder(directory);
  return new Error(
    `${(error as Error).message}: something still writes in ${directory}. ${
      holders.length === 0
        ? "No process has its working directory or an open file under it now (the writer may have ended since)."
        : `Processes with their working directory, root or an open file under it: ${holders.join("; ")}`
    }`,
    { cause: error },
  );
}

/**
 * The processes (`pid (command) args: what`) whose working directory, root or an open descriptor
 * is under `directory`, read from /proc (Linux; none elsewhere, and none of other users' that
 * /proc does not show us).
 */
export function processesUnder(directory: string): string[] {
  const prefix = path.resolve(directory);
  const under = (target: string) => target === prefix || target.startsWith(`${prefix}/`);
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const found: string[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const what = holdings(entry, under);
    if (what.length > 0) found.push(`${entry} (${commandLine(entry)}): ${what.join(", ")}`);
  }
  return found;
}

/** What of process `pid` is under the directory `under` tells: its cwd, its root, its open files. */
function holdings(pid: string, under: (target: string) => boolean): string[] {
  const what: string[] = [];
  for (const link of ["cwd", "root"]) {
    const target = linkTarget(`/proc/${pid}/${link}`);
    if (target !== undefined && under(target)) what.push(link);
  }
  let descriptors: string[] = [];
  try {
    descriptors = readdirSync(`/proc/${pid}/fd`);
  } catch {
    // Gone, or not ours.
  }
  for (const fd of descriptors) {
    const target = linkTarget(`/proc/${pid}/fd/${fd}`);
    if (target !== undefined && under(target)) what.push(`fd ${fd} ${target}`);
  }
  return what;
}

function linkTarget(link: string): string | undefined {
  try {
    return readlinkSync(link);
  } catch {
    return undefined; // gone, closed meanwhile, or not ours
  }
}

function commandLine(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "latin1").split("\0").join(" ").trim().slice(0, 200);
  } catch {
    return "?";
  }
}
