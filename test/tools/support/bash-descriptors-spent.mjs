// One child of the bash descriptor-exhaustion test. Arguments (JSON in argv[2]): { workspace,
// sandbox, hold, tool ("bash" or "monitor") }. It runs bash (or starts and waits for a monitor)
// once (every module loaded, the sandbox started), opens /dev/null until the process has no
// descriptor left, gives `hold` back, runs bash, gives every descriptor back and runs bash once more. Prints one JSON line: [label, code | "ok", message][].
// Plain node on the built package (test/support/load-entry.mjs): no tsx to start.
import { closeSync, openSync } from "node:fs";
import { loadEntry } from "../../support/load-entry.mjs";
import { lowerOpenFileLimit } from "./lower-open-file-limit.mjs";

const { createRegistry } = await loadEntry("index");
const { createMonitorTool } = await loadEntry("host/index");
const { createBashTool } = await loadEntry("tools/index");
const { workspace, sandbox, hold, tool } = JSON.parse(process.argv[2]);
// 1024 once the modules are loaded (a `ulimit -n` before node started bounded its module loader
// too); before the first call, which reads the limit the file tools size their windows to.
lowerOpenFileLimit(1024);
const run = createRegistry({ tools: [createBashTool(), createMonitorTool()] }).createRun({
  profile: "full",
  permissions: { sandbox, workspace },
});
run.activate(["monitor"]);
const answer = async (label) => {
  if (tool === "monitor") {
    // Started, then waited for: "exit code 0"-like text when it ran, the error when it did not start.
    const started = await run.call("monitor", { action: "start", command: "echo hi" });
    if (!started.ok) return [label, started.error.code, started.error.message];
    const id = started.output.id;
    const waited = await run.call("monitor", { action: "wait", id, timeout_seconds: 10 });
    return waited.ok ? [label, "ok", JSON.stringify(waited.output)] : [label, waited.error.code, waited.error.message];
  }
  const result = await run.call("bash", { command: "echo hi" });
  return result.ok ? [label, "ok", String(result.output)] : [label, result.error.code, result.error.message];
};
const answers = [await answer("bash before")];
const held = [];
try {
  for (;;) held.push(openSync("/dev/null", "r"));
} catch {
  // EMFILE: every descriptor is taken
}
for (let index = 0; index < hold; index++) closeSync(held.pop());
answers.push(await answer(`bash with ${hold} free`));
for (const fd of held) closeSync(fd);
answers.push(await answer("bash after"));
process.stdout.write(`${JSON.stringify(answers)}\n`);
process.exit(0);
