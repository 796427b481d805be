/**
 * Development aid: the same git tool call on a fresh cache `n` times in one process, CPU ms of
 * each (user + system). `node --expose-gc --import tsx bench/git/repeat-call.ts [n] [src dir]`;
 * TOOL, ARGS (JSON) and REPO pick the call (default: the bench's file history of 200 commits);
 * KEEP=1 keeps every call's cache and run reachable. The optional source directory (a copy of
 * src/) makes an A/B of two versions of the git tools in alternating processes.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRegistry } from "agent-tool-catalog";

const dir = process.env.REPO ?? "/tmp/atc-git-bench-history-20000-seed7";
const tool = process.env.TOOL ?? "git_file_history";
const args = JSON.parse(process.env.ARGS ?? '{"path":"src/parser/module-0.ts","max_results":200,"follow_renames":false}');
const n = Number(process.argv[2] ?? 6);
const source = path.resolve(process.argv[3] ?? new URL("../../src", import.meta.url).pathname);
const git = (await import(pathToFileURL(path.join(source, "git/index.ts")).href)) as typeof import("../../src/git/index.js");
const out: number[] = [];
const keep: unknown[] = [];
for (let i = 0; i < n; i++) {
  const cache = git.createGitCache();
  const run = createRegistry({ tools: git.createGitTools({ cache }) }).createRun({ permissions: { workspace: dir } });
  if (process.env.KEEP) keep.push(cache, run);
  run.activate([...git.GIT_TOOL_NAMES]);
  (globalThis as { gc?: () => void }).gc?.();
  if (process.env.MARK) console.log(`=== call ${i}`);
  const usage = process.cpuUsage();
  const result = await run.call(tool, args);
  const spent = process.cpuUsage(usage);
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  out.push(Math.round((spent.user + spent.system) / 1000));
}
console.log(JSON.stringify(out));
