/**
 * `ls` and `glob` check that their start is a directory. The check `stat`ed the path the scope had
 * resolved, so a directory on it swapped for a link to the host between the resolution and the
 * `stat` made the answer one about a host path: `not_a_directory` where the host had a file
 * there, `file_not_found` where it had nothing, an empty listing where it had a directory. Now the
 * start is opened through the workspace's verified handles and the walk lists that very directory.
 *
 * A real process (python's `renameat2(RENAME_EXCHANGE)`, so the name always exists) swaps
 * `sub` (a workspace directory) with a link to a host directory while the tools list
 * `sub/inner`; the host directory holds, in turn, a file, nothing, and a directory at `inner`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeTree } from "../support/remove-tree.js";
import { stopProcess } from "../support/stop-process.js";

const FLIPPER = `
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
a, b, seconds = sys.argv[1].encode(), sys.argv[2].encode(), float(sys.argv[3])
end = time.monotonic() + seconds
while time.monotonic() < end:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
`;

let workspace: string;
let host: string;
let flipper: ChildProcess | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-start-race-"));
  host = await mkdtemp(path.join(tmpdir(), "atc-start-host-"));
});
afterEach(async () => {
  // Waited for: a rename it is making when the signal comes still lands, inside the directories removed here.
  if (flipper !== undefined) await stopProcess(flipper);
  flipper = undefined;
  await removeTree(workspace);
  await removeTree(host);
});

/** Starts swapping `sub` and `alt` (a link to the host directory) for `seconds`. */
async function startFlipping(seconds: number): Promise<ChildProcess> {
  const child = spawn("python3", ["-c", FLIPPER, path.join(workspace, "sub"), path.join(workspace, "alt"), String(seconds)], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  await new Promise((resolve) => setTimeout(resolve, 100));
  return child;
}

const WORKSPACE_ANSWERS = new Set(["ok", "symlink_escape", "file_not_found"]);

type HostKind = "file" | "missing" | "directory";

async function hostInner(kind: HostKind): Promise<void> {
  await rm(path.join(host, "inner"), { recursive: true, force: true });
  if (kind === "file") await writeFile(path.join(host, "inner"), "host\n");
  if (kind === "directory") {
    await mkdir(path.join(host, "inner"));
    await writeFile(path.join(host, "inner", "host-secret.txt"), "host\n");
  }
}

/** What a listing answered: `ok` only with the workspace's file listed, else the error code. */
function outcome(result: ToolCallResult): string {
  if (!result.ok) return result.error.code;
  const text = String(result.output);
  if (text.includes("host-secret")) return "host-listed";
  return text.includes("marker.txt") ? "ok" : `other: ${text.split("\n")[0]}`;
}

describe("ls and glob of a start whose directory is swapped for a link to the host", () => {
  it("answer the same whatever the host has at that path (answers the workspace alone decides)", async () => {
    await mkdir(path.join(workspace, "sub", "inner"), { recursive: true });
    await writeFile(path.join(workspace, "sub", "inner", "marker.txt"), "workspace\n");
    await symlink(host, path.join(workspace, "alt"));
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    // The positive control, before the swapping: both list the workspace's directory.
    expect(outcome(await run.call("ls", { path: "sub/inner" }))).toBe("ok");
    expect(outcome(await run.call("glob", { pattern: "*.txt", path: "sub/inner" }))).toBe("ok");

    const seen = new Map<HostKind, Set<string>>();
    for (const kind of ["file", "missing", "directory"] as const) {
      await hostInner(kind);
      flipper = await startFlipping(30);
      const outcomes = new Set<string>();
      for (let round = 0; round < 150; round++) {
        outcomes.add(outcome(await run.call("ls", { path: "sub/inner" })));
        outcomes.add(outcome(await run.call("glob", { pattern: "*.txt", path: "sub/inner" })));
      }
      // Ended before the next kind's host is made and the next flipper starts: two swapping at once
      // (a killed one's last rename still to land) would test something else.
      await stopProcess(flipper);
      flipper = undefined;
      seen.set(kind, outcomes);
    }
    // Every answer is one the workspace alone decides: its listing, the link refused, or no
    // directory (a workspace entry on the way that was the link when opened). Before,
    // `not_a_directory` (host file), `file_not_found` (nothing there) and empty listings (host
    // directory) came and went with the host.
    // The swapping was seen (the link refused at some calls), so the calls raced with it.
    expect([...seen.values()].some((outcomes) => outcomes.has("symlink_escape"))).toBe(true);
    for (const [kind, outcomes] of seen) {
      expect({ kind, outcomes: [...outcomes].filter((code) => !WORKSPACE_ANSWERS.has(code)) }).toEqual({
        kind,
        outcomes: [],
      });
    }
  }, 120_000);
});
