// A process that takes the locks of many keys at once in the lock directory <lockDir> (argv[2]),
// so that it spends a long while between creating its `.owner` file and removing it (linking one
// lock file per key): the test kills it with SIGKILL in that window. Prints "ready" just before.
// Run with `node --import tsx`: it uses internal modules of the sources.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [lockDir, count] = process.argv.slice(2);
process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lockDir;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const { withFileLocks } = await import(pathToFileURL(path.join(repo, "src/tools/fs/cross-process-lock.ts")).href);
const keys = Array.from({ length: Number(count) }, (_, index) => `/owner-test/key-${index}`);
process.stdout.write("ready\n");
await withFileLocks(keys, () => new Promise(() => {}));
