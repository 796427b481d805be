/**
 * A host process with a controlling terminal, for the terminal-injection escape attempts: the
 * test starts it under `script`, so its session owns a pseudo-terminal as an agent host run from
 * a developer's shell does. It runs one command (argv: scope, workspace, command) through the bash
 * tool under `scope`, or, for scope `host`, as a plain child of this process that shares its
 * session (the positive control), and prints the outcome as JSON between markers (the terminal
 * adds carriage returns around it).
 */
import { spawnSync } from "node:child_process";
import { attackRun, sh } from "./sandbox-harness.js";

const [scope, workspace, command] = process.argv.slice(2) as ["workspace" | "local" | "unrestricted" | "host", string, string];
let outcome: { status: string; stdout: string; stderr: string };
if (scope === "host") {
  const child = spawnSync("/usr/bin/bash", ["-c", command], { cwd: workspace, stdio: ["inherit", "pipe", "pipe"] });
  outcome = { status: `exit code ${child.status}`, stdout: String(child.stdout).trim(), stderr: String(child.stderr) };
} else {
  const { status, stdout, stderr } = await sh(attackRun(workspace, scope), command);
  outcome = { status, stdout, stderr };
}
process.stdout.write(`<<<${JSON.stringify(outcome)}>>>\n`);
