/**
 * A host process for the descriptor escape attempts: started by the test with extra descriptors
 * that are NOT close-on-exec (an outside file on fd 20, a connected unix socket on fd 21, the
 * file again on fd 25), as a supervisor or a log redirection would leave them. It runs one command
 * through a process sandbox (argv: scope, workspace, command) and prints the result as JSON.
 * Plain JavaScript loading the public `tools` entry (test/support/load-entry.mjs): with a current
 * build it starts as plain node on dist/, not under tsx on src/ (about 1 s of CPU less per host).
 */
import { loadEntry } from "../../support/load-entry.mjs";

const { createProcessSandbox, runSandboxed } = await loadEntry("tools/index");
const [scope, workspace, command] = process.argv.slice(2);
const sandbox = await createProcessSandbox({ scope, workspace, allowUnixSocketPairs: true });
const result = await runSandboxed(sandbox, { command: "/usr/bin/bash", args: ["-c", command], cwd: workspace });
process.stdout.write(JSON.stringify({ kind: sandbox.kind, ...result }));
