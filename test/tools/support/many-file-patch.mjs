// One apply_patch of argv[2].files files (half updated, half added, in argv[2].dirs directories)
// from src, run under a low `ulimit -n` by the caller; argv[2].extra: more patch lines, put last;
// argv[2].hold: descriptors the process holds open before the call (a host using most of its limit);
// argv[2].before: patch lines put first (in the first group of directories).
// Prints the call's result as JSON.
import { openSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const { workspace, files, dirs, extra = [], hold = 0, before = [] } = JSON.parse(process.argv[2]);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (file) => import(pathToFileURL(path.join(repo, file)).href);
const core = await load("src/index.ts");
const tools = await load("src/tools/index.ts");
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});
const lines = ["*** Begin Patch", ...before];
for (let i = 0; i < files; i++) {
  const file = `d${i % dirs}/f${i}.txt`;
  if (i % 2 === 0) lines.push(`*** Update File: ${file}`, `-old ${i}`, `+new ${i}`);
  else lines.push(`*** Add File: ${file}`, `+new ${i}`);
}
lines.push(...extra, "*** End Patch");
for (let i = 0; i < hold; i++) openSync("/dev/null", "r");
const result = await run.call("apply_patch", { patch: lines.join("\n") });
process.stdout.write(`${JSON.stringify(result.ok ? { ok: true } : { ok: false, error: result.error })}\n`);
