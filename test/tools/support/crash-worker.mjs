// Loops multi-file apply_patch flips (10 files between states A and B) and 2 MB writes until killed.
// argv[2]: JSON { workspace, format: "src" | "dist", check? }. Prints "ready" after its first change.
// With `check` ("ls" or "read"), it is first the next process after a crash: that one call (whose
// recovery the test then checks), "checked", and it waits for a line on stdin: "go" makes it the
// next crashing worker (one process start per crash, not two), the end of stdin makes it exit; after
// "go" it prints "ready" as its first change starts (the workspace is set up since the first
// worker's first change), so that change can be the one killed rather than a round always wasted.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { checkedThenAwaitGo } from "./checked-then-go.mjs";

const { workspace, format, check } = JSON.parse(process.argv[2]);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (src, dist) => import(pathToFileURL(path.join(repo, format === "src" ? src : dist)).href);
const core = await load("src/index.ts", "dist/index.js");
const tools = await load("src/tools/index.ts", "dist/tools/index.js");
const newRun = () =>
  core.createRegistry({ tools: tools.createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });

if (check !== undefined) {
  // Its own run: the loop's first read below must see the file's text, not "unchanged since your last read".
  const first = newRun();
  const result = await (check === "ls" ? first.call("ls", { path: "." }) : first.call("read", { path: "f0.txt" }));
  if (!result.ok) {
    process.stderr.write(`${JSON.stringify(result.error)}\n`);
    process.exit(2);
  }
  await checkedThenAwaitGo();
}

const run = newRun();
const FILES = 10;
const patch = (from, to) =>
  [
    "*** Begin Patch",
    ...Array.from({ length: FILES }, (_, i) => [`*** Update File: f${i}.txt`, `-${from} ${i}`, `+${to} ${i}`]).flat(),
    "*** End Patch",
  ].join("\n");
const big = (letter) => letter.repeat(2 * 1024 * 1024);

let state = (await run.call("read", { path: "f0.txt" })).output.includes("A 0") ? "A" : "B";
// A worker after a crash (check) is ready at once: its first change can be the one killed.
let ready = check !== undefined;
if (ready) process.stdout.write("ready\n");
for (let round = 0; ; round++) {
  const next = state === "A" ? "B" : "A";
  const result = await run.call("apply_patch", { patch: patch(state, next) });
  if (!result.ok) {
    process.stderr.write(`${JSON.stringify(result.error)}\n`);
    process.exit(2);
  }
  state = next;
  await run.call("write", { path: "big.txt", content: big(round % 2 === 0 ? "x" : "y") });
  if (!ready) {
    ready = true;
    process.stdout.write("ready\n");
  }
}
