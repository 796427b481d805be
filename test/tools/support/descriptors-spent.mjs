// One child of the descriptor-exhaustion test. Arguments (JSON in argv[2]): { workspace, sandbox,
// hold }. It warms the tools up (every module loaded), opens /dev/null until the process has no
// descriptor left, gives `hold` back, calls grep (a directory and a file), glob, read and write,
// gives every descriptor back and greps once more. Prints one JSON line: [tool, code | "ok"][].
// A process that dies before printing (an unheard 'error' event) fails the test.
// Plain node on the built package (test/support/load-entry.mjs): no tsx to start.
import { closeSync, openSync } from "node:fs";
import { loadEntry } from "../../support/load-entry.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const { createRegistry } = await loadEntry("index");
const { createFileTools } = await loadEntry("tools/index");
const { workspace, sandbox, hold } = JSON.parse(process.argv[2]);
// 1024 once the modules are loaded (a `ulimit -n` before node started bounded its module loader
// too); before the first call, which reads the limit the file tools size their windows to.
lowerOpenFileLimit(1024);
const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
const calls = [
  ["grep", { pattern: "needle", path: "." }],
  ["grep", { pattern: "needle", path: "a.txt" }],
  ["glob", { pattern: "**/*.txt" }],
  ["read", { path: "a.txt" }],
  ["write", { path: "b.txt", content: "written\n" }],
];
for (const [name, args] of calls) await run.call(name, args);
const held = [];
try {
  for (;;) held.push(openSync("/dev/null", "r"));
} catch {
  // EMFILE: every descriptor is taken
}
for (let index = 0; index < hold; index++) closeSync(held.pop());
const answers = [];
for (const [name, args] of calls) {
  const result = await run.call(name, args);
  answers.push([name, result.ok ? "ok" : result.error.code]);
}
for (const fd of held) closeSync(fd);
const after = await run.call("grep", { pattern: "needle", path: "." });
answers.push(["grep after", after.ok ? "ok" : after.error.code]);
process.stdout.write(`${JSON.stringify(answers)}\n`);
process.exit(0);
