/**
 * A host whose event loop is starved while it runs commands, as a host running many calls at
 * once is (each call's exit does synchronous work: /proc scans for its processes). It runs
 * `count` commands at once through `runSandboxed` under `scope` (argv: scope, workspace, count,
 * command, milliseconds each block lasts) while a timer keeps blocking the loop, and prints each
 * result (stdout, exit code, whether it said the output was held open, milliseconds it took) as
 * JSON between markers.
 */
import { loadEntry } from "../../support/load-entry.mjs";

// The public entry from the copy the parent chose (test/support/child-entry.ts: the build when it
// is current, a plain node; else src under tsx).
const { createProcessSandbox, runSandboxed } = await loadEntry("tools/index");
/** @type {[scope: "workspace" | "local" | "unrestricted", workspace: string, count: string, command: string, blockMs: string]} */
const [scope, workspace, count, command, blockMs] = process.argv.slice(2);
const sandbox = await createProcessSandbox({ scope, workspace, limits: false });
const block = Number(blockMs);
const busy = setInterval(() => {
  const end = performance.now() + block;
  while (performance.now() < end) {
    // Starves the loop: the timers due meanwhile fire with the I/O that came meanwhile unread.
  }
}, 50);
const results = await Promise.all(
  Array.from({ length: Number(count) }, async () => {
    const started = performance.now();
    const result = await runSandboxed(sandbox, { command: "/usr/bin/bash", args: ["-c", command], cwd: workspace });
    return {
      stdout: result.stdout,
      exitCode: result.exitCode,
      heldOpen: result.outputHeldOpen === true,
      ms: Math.round(performance.now() - started),
    };
  }),
);
clearInterval(busy);
process.stdout.write(`<<<${JSON.stringify(results)}>>>\n`);
