/**
 * Host CPU of one `bash` call under sandbox scope `workspace` in a big workspace: the spawn's git
 * scan (git-protection.ts) and the walk after the command (new-git-directories.ts) together.
 * Builds a workspace of `--dirs` directories (default 20,000) holding `--files` files (default
 * 100,000), a few nested repositories and a `node_modules`, then times `run.call("bash")` with
 * `process.cpuUsage` (this process only: bwrap and the command are children) over `--calls` calls.
 *   node --import tsx bench/tools/sandbox-walk-cpu.ts [--dirs=20000] [--files=100000] [--calls=10] [--small]
 */
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { createRegistry } from "../../src/index.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { bigWorkspace } from "./sandbox-walk-cpu-lib.js";

const option = (name: string, fallback: number) => {
  const found = process.argv.find((arg) => arg.startsWith(`--${name}=`));
  return found === undefined ? fallback : Number(found.slice(name.length + 3));
};
const small = process.argv.includes("--small");
const directories = small ? 10 : option("dirs", 20_000);
const files = small ? 50 : option("files", 100_000);
const calls = option("calls", 10);

async function main(): Promise<void> {
  const started = Date.now();
  const workspace = bigWorkspace(directories, files);
  const built = Date.now() - started;
  // Past the racy margin (2.5 s), so the listings may be reused.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const run = createRegistry({ tools: [createBashTool()] }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  const samples: number[] = [];
  try {
    for (let index = 0; index < calls + 1; index++) {
      const before = process.cpuUsage();
      const result = await run.call("bash", { command: "true" });
      const used = process.cpuUsage(before);
      if (!result.ok) throw new Error(JSON.stringify(result));
      samples.push((used.user + used.system) / 1000);
    }
  } finally {
    await run.close?.();
    rmSync(workspace, { recursive: true, force: true });
  }
  const [first, ...rest] = samples;
  rest.sort((a, b) => a - b);
  const median = rest[Math.floor(rest.length / 2)] ?? 0;
  console.log(
    JSON.stringify({
      directories,
      files,
      builtMs: built,
      firstCallCpuMs: Math.round(first ?? 0),
      repeatedCallCpuMs: { median: Math.round(median), min: Math.round(rest[0] ?? 0), max: Math.round(rest.at(-1) ?? 0) },
      load: loadavg()[0]?.toFixed(1),
    }),
  );
}

await main();
