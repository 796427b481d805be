// A writer killed with SIGKILL (by itself) while a grouped change (20 directories at `ulimit -n`
// 64: groups of 16 and 4) removes its temporary files after a rename failed part way: right after
// the commit point, d01/f.txt is replaced by a directory that is not empty, so the first group's
// rename there fails (its others are made) and the second group's files are never renamed. The
// kill comes once the first of the second group's temporary files is removed; before it the
// worker prints what the log said then ("committed", "prepared" or "reverting"). When no kill
// came, it prints "finished". argv[2]: the workspace (d00..d19, each with f.txt "head 0"), used by
// no process before. argv[3] "revertible": the changes carry the content they replace (`expected`,
// with a `verify`), so the change takes itself back under its log (`revertInGroups`, the intended
// path, whose removals are synchronous); otherwise it cannot, and is rolled forward (no removal).
// Run with `node --import tsx`; it lowers its open-file limit to 64 once src is loaded.
import fs, { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, writeSync } from "node:fs";
import fsPromises, { realpath } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const [workspace, mode] = process.argv.slice(2);
const revertible = mode === "revertible";
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (file) => import(pathToFileURL(path.join(repo, file)).href);
const { IntentLog, intentDirectory } = await load("src/tools/fs/intent-log.ts");
const { applyFileChanges } = await load("src/tools/fs/file-transaction.ts");
const { createConfinedFileScope } = await load("src/tools/fs/confined-file-scope.ts");
lowerOpenFileLimit(64);
const intents = intentDirectory(await realpath(workspace));

/** The state the workspace's one log says (`undefined`: none). */
function logState() {
  let state;
  for (const name of readdirSync(intents)) {
    if (!name.endsWith(".json")) continue;
    try {
      state = JSON.parse(readFileSync(path.join(intents, name), "utf8")).state;
    } catch {
      // being written
    }
  }
  return state;
}

const commit = IntentLog.prototype.commit;
IntentLog.prototype.commit = async function () {
  await commit.call(this);
  const target = path.join(workspace, "d01/f.txt");
  rmSync(target);
  mkdirSync(path.join(target, "inside"), { recursive: true });
  writeFileSync(path.join(target, "inside/x"), "x\n");
};
const unlink = fsPromises.unlink;
// The temporary files are removed group by group, through the directories' descriptors, here one
// at a time (a queue): the first removed is d01's (the first group's only one left), the second
// one of the second group's; the kill follows it, the other three still in place.
let removed = 0;
let queue = Promise.resolve();
fsPromises.unlink = (file, ...rest) => {
  if (!path.basename(String(file)).startsWith(".atc-")) return unlink(file, ...rest);
  const step = queue.then(async () => {
    await unlink(file, ...rest);
    if (++removed < 2) return;
    writeSync(1, `${JSON.stringify({ killed: logState() })}\n`);
    process.kill(process.pid, "SIGKILL");
    await new Promise(() => undefined);
  });
  queue = step.catch(() => undefined);
  return step;
};
// The revert's removals are synchronous (`unlinkSync`): the kill follows the first of the second
// group's (d16..d19), its others still in place.
const unlinkSync = fs.unlinkSync;
fs.unlinkSync = (file, ...rest) => {
  unlinkSync(file, ...rest);
  const name = String(file);
  if (!path.basename(name).startsWith(".atc-")) return;
  // Named through the held directory's descriptor (/proc/self/fd/N/...): its real path says which.
  let directory = path.dirname(name);
  try {
    directory = fs.readlinkSync(directory);
  } catch {}
  if (!/\/d1[6-9]$/.test(directory)) return;
  writeSync(1, `${JSON.stringify({ killed: logState() })}\n`);
  process.kill(process.pid, "SIGKILL");
};
syncBuiltinESMExports();

const changes = Array.from({ length: 20 }, (_, index) => ({
  path: `d${String(index).padStart(2, "0")}/f.txt`,
  after: "head 1\n",
  ...(revertible ? { expected: Buffer.from("head 0\n") } : {}),
}));
const options = revertible ? { verify: async () => undefined } : {};
const outcome = await applyFileChanges(createConfinedFileScope(workspace), changes, options).then(
  () => "resolved",
  (error) => `${error.name}: ${error.message}`,
);
writeSync(1, `${JSON.stringify({ finished: outcome })}\n`);
process.exit(0);
