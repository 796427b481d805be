// Loops one single-file change until killed: `replace_all` edits of a 1 MiB file (every line "A"
// to "B" and back), 64 KiB `append` writes, or a whole write then its undo.
// argv[2]: JSON { workspace, format: "src" | "dist", op: "replace_all" | "append" | "undo" }.
// Prints "ready" after its first change, and "call <tool>" before each call after it (the test
// kills on the first temporary file of the op's own call, edit, write or undo, once asked to).
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const { workspace, format, op } = JSON.parse(process.argv[2]);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (src, dist) => import(pathToFileURL(path.join(repo, format === "src" ? src : dist)).href);
const core = await load("src/index.ts", "dist/index.js");
const tools = await load("src/tools/index.ts", "dist/tools/index.js");
const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace },
});

let ready = false;
async function must(name, input) {
  // A pipe's writes are synchronous on Linux: the line is in the pipe before the call begins.
  if (ready) process.stdout.write(`call ${name}\n`);
  const result = await run.call(name, input);
  if (!result.ok) {
    process.stderr.write(`${name}: ${JSON.stringify(result.error)}\n`);
    process.exit(2);
  }
  return String(result.output);
}

const CHUNK = 64 * 1024;
for (let round = 0; ; round++) {
  if (op === "replace_all") {
    await must("read", { path: "t.txt", limit: 1 });
    const from = readFileSync(path.join(workspace, "t.txt"), "utf8")[0];
    await must("edit", { path: "t.txt", old_text: from, new_text: from === "A" ? "B" : "A", replace_all: true });
  } else if (op === "append") {
    await must("write", { path: "t.txt", content: String.fromCharCode(65 + (round % 26)).repeat(CHUNK), append: true });
  } else {
    await must("read", { path: "t.txt", limit: 1 });
    await must("write", { path: "t.txt", content: "N".repeat(2 * 1024 * 1024) });
    await must("undo", {});
  }
  if (round === 0) {
    process.stdout.write("ready\n");
    ready = true;
  }
}
