/**
 * Setup file of the `shared` test project (vitest.config.ts), whose files run one after another
 * in a worker that keeps its module graph (`isolate: false`). A file there must leave the process
 * as it found it: what it changes in the environment, the working directory or the umask, and the
 * handles it leaves open (servers, sockets, timers, watchers) or the child processes it leaves
 * running, would silently change the files that happen to run after it in the same worker, and
 * which those are depends on scheduling. So a file that leaves such a change fails itself, naming
 * it, whatever runs next. (Module state of the library, e.g. a process-wide warning budget, cannot
 * be checked this way: files whose point is a fresh process stay in the isolated project.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll } from "vitest";

let environment: Record<string, string | undefined> = {};
let directory = "";
let mask = 0;
let resources = new Map<string, number>();
let childrenBefore = new Set<string>();

function currentUmask(): number {
  // Read it by setting it: `process.umask()` without an argument is deprecated (DEP0139).
  const previous = process.umask(0o022);
  process.umask(previous);
  return previous;
}

function countResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/** Resource kinds with more open now than when the file started, e.g. `Timeout +1`. */
function grownResources(): string[] {
  const grown: string[] = [];
  for (const [kind, count] of countResources()) {
    const before = resources.get(kind) ?? 0;
    if (count > before) grown.push(`${kind} +${count - before}`);
  }
  return grown;
}

/** Processes whose parent is this worker, as `pid (command)`. */
function liveChildren(): string[] {
  const children: string[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      // A zombie (state Z) has exited; node reaps it on its own. esbuild's service process is
      // started once by the first TypeScript transform in a worker (tsx, vite) and serves every
      // later file: it is the worker's, not a file's.
      if (Number(fields[1]) === process.pid && fields[0] !== "Z" && command !== "esbuild") children.push(`${name} (${command})`);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return children;
}

beforeAll(() => {
  environment = { ...process.env };
  directory = process.cwd();
  mask = currentUmask();
  resources = countResources();
  childrenBefore = new Set(liveChildren());
});

afterAll(async () => {
  const left: string[] = [];
  for (const name of new Set([...Object.keys(environment), ...Object.keys(process.env)])) {
    if (environment[name] !== process.env[name]) left.push(`environment variable ${name}`);
  }
  if (process.cwd() !== directory) left.push(`working directory (${directory} -> ${process.cwd()})`);
  const now = currentUmask();
  if (now !== mask) left.push(`umask (${mask.toString(8)} -> ${now.toString(8)})`);
  // Closing is asynchronous (a server's close, a child's exit event): give what the file closed
  // a moment to finish before calling it left open.
  let grown = grownResources();
  // Only the file's own: a child an earlier file left is that file's failure, already reported.
  const newChildren = () => liveChildren().filter((child) => !childrenBefore.has(child));
  let children = newChildren();
  for (let waited = 0; (grown.length > 0 || children.length > 0) && waited < 2_000; waited += 50) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    grown = grownResources();
    children = newChildren();
  }
  if (grown.length > 0) left.push(`open handles (${grown.join(", ")})`);
  if (children.length > 0) left.push(`child processes still running (${children.join(", ")})`);
  if (left.length > 0) {
    throw new Error(
      `This test file left process state that the next file in its worker would inherit (the shared project runs without isolation): ${left.join(", ")}. Restore or close it in afterEach/afterAll, or move the file to the isolated project in vitest.config.ts.`,
    );
  }
});
