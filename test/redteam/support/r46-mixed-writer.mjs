// One writer process for round 46's mixed-writers test. Arguments (JSON in argv[2]):
// { workspace, format: "esm" | "cjs", tag, count, go }. It loads the named build of dist/, waits
// for the `go` file, then cycles write (append), edit, undo, redo, apply_patch, undo on f.txt,
// each adding one line of its own or taking its own last change back, and prints one JSON line:
// { present: [its lines it was told are in the file], counts: { "<tool>:<ok | code>": n } }.
import { existsSync } from "node:fs";
import { loadBuild } from "../../support/load-build.mjs";

const options = JSON.parse(process.argv[2]);
const { core, tools } = await loadBuild(options.format);
const run = core
  .createRegistry({ tools: tools.createFileTools({ redo: true }) })
  .createRun({ profile: "full", permissions: { sandbox: "workspace", workspace: options.workspace } });
while (!existsSync(options.go)) await new Promise((resolve) => setTimeout(resolve, 2));

const present = new Set();
const done = []; // this writer's changes not undone, newest last
const undone = []; // undone, newest last
const counts = {};
let next = 0;
const steps = ["append", "edit", "undo", "redo", "patch", "undo"];
for (let index = 0; index < options.count; index++) {
  const step = steps[index % steps.length];
  const line = `${options.tag}-${next}`;
  let result;
  if (step === "append") result = await run.call("write", { path: "f.txt", content: `${line}\n`, append: true });
  else if (step === "edit") result = await run.call("edit", { path: "f.txt", old_text: "END\n", new_text: `${line}\nEND\n` });
  else if (step === "patch") result = await run.call("apply_patch", { path: "f.txt", find: "END\n", replace: `END\n${line}\n` });
  else if (step === "undo") result = await run.call("undo", { steps: 1 });
  else result = await run.call("undo", { action: "redo", steps: 1 });
  const key = `${step}:${result.ok ? "ok" : result.error.code}`;
  counts[key] = (counts[key] ?? 0) + 1;
  if (!result.ok) continue;
  if (step === "undo") {
    const last = done.pop();
    if (last !== undefined) {
      present.delete(last);
      undone.push(last);
    }
  } else if (step === "redo") {
    const last = undone.pop();
    if (last !== undefined) {
      present.add(last);
      done.push(last);
    }
  } else {
    next++;
    present.add(line);
    done.push(line);
    undone.length = 0;
  }
}
process.stdout.write(`${JSON.stringify({ present: [...present], counts })}\n`);
