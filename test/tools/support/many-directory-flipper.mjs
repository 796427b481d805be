// Loops one apply_patch over `dirs` directories (file d{i}/f.txt flipped between "A i" and "B i")
// until killed, under the open-file limit `limit` (set once src is loaded). argv[2]: JSON
// { workspace, dirs, limit, check? }. Prints "ready" after its first change. With `check`, it is first the
// next process after a crash: one `ls` (whose recovery the test then checks), "checked", and it waits
// for a line on stdin: "go" makes it the next flipping process (one process start per crash, not
// two), the end of stdin makes it exit. After "go" it prints "ready" as its first change starts: the
// intent directory is there since the first process's first change, so that change can be the one
// killed (a whole 400-file change before each kill cost about a CPU-second per crash).
import { loadEntry } from "../../support/load-entry.mjs";
import { checkedThenAwaitGo } from "./checked-then-go.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const { workspace, dirs, limit, check } = JSON.parse(process.argv[2]);
const core = await loadEntry("index");
const tools = await loadEntry("tools/index");
lowerOpenFileLimit(limit);
const newRun = () =>
  core.createRegistry({ tools: tools.createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
const fail = (result) => {
  process.stderr.write(`${JSON.stringify(result.error)}\n`);
  process.exit(2);
};

if (check) {
  const result = await newRun().call("ls", { path: "." });
  if (!result.ok) fail(result);
  await checkedThenAwaitGo();
}

const run = newRun();
const patch = (from, to) =>
  [
    "*** Begin Patch",
    ...Array.from({ length: dirs }, (_, i) => [`*** Update File: d${i}/f.txt`, `-${from} ${i}`, `+${to} ${i}`]).flat(),
    "*** End Patch",
  ].join("\n");
let state = (await run.call("read", { path: "d0/f.txt" })).output.includes("A 0") ? "A" : "B";
// A process after a crash (check) is ready at once: its first change can be the one killed.
let ready = Boolean(check);
if (ready) process.stdout.write("ready\n");
for (;;) {
  const next = state === "A" ? "B" : "A";
  const result = await run.call("apply_patch", { patch: patch(state, next) });
  if (!result.ok) fail(result);
  state = next;
  if (!ready) {
    ready = true;
    process.stdout.write("ready\n");
  }
}
