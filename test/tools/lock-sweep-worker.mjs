// A new process of the catalog (the sources, through tsx) in the lock directory
// AGENT_TOOL_CATALOG_LOCK_DIR and state directory AGENT_TOOL_CATALOG_STATE_DIR: it takes one file
// lock through `withFileLocks`, as any file tool call does (which starts the process's sweep of
// dead holders' state), waits for that sweep, and prints its report as one JSON line.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const load = (file) => import(pathToFileURL(path.join(repo, file)).href);
const { withFileLocks } = await load("src/tools/fs/cross-process-lock.ts");
const { startStateSweep } = await load("src/tools/fs/lock-sweep.ts");
// The sweep's timers do not keep a process alive: this one waits for it.
const keep = setInterval(() => undefined, 1000);
await withFileLocks(["lock-sweep-worker"], async () => undefined);
const report = await startStateSweep();
clearInterval(keep);
process.stdout.write(`${JSON.stringify(report)}\n`);
