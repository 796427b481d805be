// A new process of the catalog (the sources, through tsx) taking the file lock of each key given
// (argv[2...]) in turn through `withFileLocks`, as a file tool call does, in the lock directory
// AGENT_TOOL_CATALOG_LOCK_DIR with the wait AGENT_TOOL_CATALOG_LOCK_WAIT_MS. Prints one JSON line
// per key: { key, ok: true } once its task ran under the lock (released at once), or
// { key, code, message } for the ToolError it got instead.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { withFileLocks } = await import(pathToFileURL(path.join(repo, "src/tools/fs/cross-process-lock.ts")).href);
for (const key of process.argv.slice(2)) {
  try {
    await withFileLocks([key], async () => undefined);
    process.stdout.write(`${JSON.stringify({ key, ok: true })}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ key, code: error.code, message: error.message })}\n`);
  }
}
