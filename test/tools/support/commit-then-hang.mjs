// A writer that stops dead at the worst moment: it holds the lock of <workspace>/a.txt, has written
// the new content "D" to a temporary file and logged the change as committed (so the next recovery
// rolls it forward), and has not renamed yet. Prints "ready", then waits to be killed with SIGKILL.
// With a second argument "read", it is a fresh process instead: one `read` of a.txt through the
// file tools (which recovers the workspace first), printing the content.
// Run with `node --import tsx`: it uses internal modules of the sources.
import { realpath, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [workspace, mode] = process.argv.slice(2);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (file) => import(pathToFileURL(path.join(repo, file)).href);

if (mode === "read") {
  const core = await load("src/index.ts");
  const tools = await load("src/tools/index.ts");
  const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  const result = await run.call("read", { path: "a.txt" });
  process.stdout.write(JSON.stringify(result.ok ? { ok: true } : { ok: false, error: result.error }));
  process.exit(0);
}

const { withFileLocks } = await load("src/tools/fs/cross-process-lock.ts");
const { IntentLog } = await load("src/tools/fs/intent-log.ts");
const root = await realpath(workspace);
await withFileLocks([path.join(root, "a.txt")], async () => {
  const temporary = ".a.txt.crashed-writer";
  await writeFile(path.join(root, temporary), "D");
  const log = await IntentLog.prepare(root, [{ directory: root, name: "a.txt", temporary, created: [] }]);
  await log.commit();
  process.stdout.write("ready\n");
  await new Promise(() => undefined);
});
