import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";

/**
 * The environment variable that tags a stdio server and everything it starts, so that a helper
 * which left the server's process group (`setsid`, a daemonizing double fork) is still found and
 * ended with the server.
 */
export const MCP_PROCESS_TAG_VARIABLE = "AGENT_TOOL_CATALOG_MCP_SERVER_TAG";

/** A fresh tag, unique to one start of one server. */
export function newProcessTag(): string {
  return randomUUID();
}

// A tagged process forking at the moment /proc is read hands the tag on to a child the pass did
// not see; a killed process forks no more, so passes repeat until one finds nothing.
const KILL_PASSES = 20;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Sends `signal` to every process of this user whose environment carries `tag` (read from /proc;
 * elsewhere it finds nothing), except members of the group `exceptGroup` (signalled as a group
 * by the caller), and returns how many it signalled. With `SIGKILL` it repeats until a pass finds
 * none alive. A process that cleared its environment escapes this.
 */
export function signalTagged(tag: string, signal: NodeJS.Signals, exceptGroup?: number): number {
  let total = 0;
  for (let pass = 0; pass < (signal === "SIGKILL" ? KILL_PASSES : 1); pass++) {
    const found = signalTaggedOnce(`${MCP_PROCESS_TAG_VARIABLE}=${tag}`, signal, exceptGroup);
    total += found;
    if (found === 0) break;
    Atomics.wait(PAUSE, 0, 0, 5);
  }
  return total;
}

function signalTaggedOnce(needle: string, signal: NodeJS.Signals, exceptGroup: number | undefined): number {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return 0;
  }
  let found = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let environment: string;
    let stat: string;
    try {
      environment = readFileSync(`/proc/${entry}/environ`, "latin1");
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // gone, or another user's
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so cut at the last ")".
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // A zombie is dead already; signalling it again would only keep the passes going.
    if (fields[0] === "Z" || (exceptGroup !== undefined && Number(fields[2]) === exceptGroup)) continue;
    if (!environment.split("\0").includes(needle)) continue;
    try {
      process.kill(Number(entry), signal);
      found++;
    } catch {
      // Already gone.
    }
  }
  return found;
}
