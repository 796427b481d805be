// A live process holding the file lock of <key> (argv[3]) in the lock directory <lockDir>
// (argv[2]) through the catalog's own `withFileLocks`, as another agent's file tool call does while
// it writes. Prints "held" once the lock is taken, and releases it (and exits) when its stdin ends.
// Run with `node --import tsx`: it uses internal modules of the sources.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [lockDir, key] = process.argv.slice(2);
process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const { withFileLocks } = await import(pathToFileURL(path.join(repo, "src/tools/fs/cross-process-lock.ts")).href);
await withFileLocks([key], async () => {
  process.stdout.write("held\n");
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
});
process.stdout.write("released\n");
