/**
 * A host process with a controlling terminal, for the terminal-injection escape attempts: the
 * test starts it under `script`, so its session owns a pseudo-terminal as an agent host run from
 * a developer's shell does. It runs one command (argv: scope, workspace, command) through the bash
 * tool under `scope`, as sandbox-harness.ts's attackRun does, and prints the tool's result; for
 * scope `host` it runs it as a plain child of this process that shares its session (the positive
 * control) and prints its status and output. The JSON goes between markers (the terminal adds
 * carriage returns around it). Plain JavaScript loading public entries (test/support/load-entry.mjs):
 * with a current build it starts as plain node on dist/, not under tsx on src/.
 */
import { spawnSync } from "node:child_process";
import { loadEntry } from "../../support/load-entry.mjs";

const [scope, workspace, command] = process.argv.slice(2);
let printed;
if (scope === "host") {
  const child = spawnSync("/usr/bin/bash", ["-c", command], { cwd: workspace, stdio: ["inherit", "pipe", "pipe"] });
  printed = { host: { status: `exit code ${child.status}`, stdout: String(child.stdout).trim(), stderr: String(child.stderr) } };
} else {
  const [{ createRegistry }, { createBashTool }] = await Promise.all([loadEntry("index"), loadEntry("tools/index")]);
  const run = createRegistry({ tools: [createBashTool({})] }).createRun({
    profile: "full",
    permissions: { sandbox: scope, workspace },
    condenseThreshold: Number.POSITIVE_INFINITY,
  });
  printed = { result: await run.call("bash", { command }) };
}
process.stdout.write(`<<<${JSON.stringify(printed)}>>>\n`);
