// One editor process for the ENOSPC red team test. Arguments (JSON in argv[2]):
// { workspace, format: "esm" | "cjs", tag, count, go }. It waits for the `go` file, then makes
// `count` edits, each putting one line of its own before "END", and prints one JSON line:
// { ok: [line], failed: [[line, code]] }.
import { existsSync } from "node:fs";
import { loadBuild } from "../../support/load-build.mjs";

const options = JSON.parse(process.argv[2]);
const { core, tools } = await loadBuild(options.format);
const run = core
  .createRegistry({ tools: tools.createFileTools() })
  .createRun({ profile: "full", permissions: { sandbox: "workspace", workspace: options.workspace } });
await run.call("read", { path: "f.txt" });
while (!existsSync(options.go)) await new Promise((resolve) => setTimeout(resolve, 2));
const ok = [];
const failed = [];
for (let index = 0; index < options.count; index++) {
  const line = `${options.tag}-${index}`;
  const result = await run.call("edit", { path: "f.txt", old_text: "END", new_text: `${line}\nEND` });
  if (result.ok) ok.push(line);
  else failed.push([line, result.error.code]);
}
process.stdout.write(`${JSON.stringify({ ok, failed })}\n`);
