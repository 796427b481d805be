/**
 * A host process for the attempt on a `/proc` of another pid namespace: started by the test
 * inside a new pid namespace that keeps the outer `/proc` (as a container given its host's
 * `/proc`). It spawns one workspace command (argv: workspace) and prints, as JSON, what came of
 * it and how long it took.
 */
import { BubblewrapSandbox } from "../../../src/tools/sandbox/bubblewrap-sandbox.js";

const [workspace] = process.argv.slice(2) as [string];
const started = Date.now();
const done = (outcome: Record<string, unknown>) => {
  process.stdout.write(JSON.stringify({ ...outcome, ms: Date.now() - started, pid: process.pid }));
  process.exit(0);
};
try {
  // Given, not looked for: inside the test's user namespace the system's files are not root's.
  const sandbox = new BubblewrapSandbox({
    scope: "workspace",
    workspace,
    limits: false,
    executable: "/usr/bin/bwrap",
    launcherShell: "/bin/bash",
  });
  const child = sandbox.spawn({ command: "/bin/bash", args: ["-c", "echo ran"], cwd: workspace });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  const timer = setTimeout(() => {
    child.kill();
    done({ waited: true, stdout });
  }, 20_000);
  const exit = await child.exited;
  clearTimeout(timer);
  done({ stdout, error: exit.error?.message });
} catch (error) {
  const failure = error as { message: string; code?: string; data?: unknown };
  done({ thrown: failure.message, code: failure.code, data: failure.data });
}
