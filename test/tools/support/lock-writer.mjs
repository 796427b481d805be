// A writer process for the cross-process lock tests and bench. Arguments (JSON in argv[2]):
// { workspace, sandbox, format: "src" | "esm" | "cjs" | "both", go, mode: "once" | "increment" | "plain",
//   paths: string[], expected?, count, tag, ready? }
// It waits for the `go` file, then writes and prints one JSON line of results.
import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { loadBuild } from "../../support/load-build.mjs";

const options = JSON.parse(process.argv[2]);
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

async function loadFormats() {
  if (options.format === "src") {
    const core = await import(pathToFileURL(path.join(repo, "src/index.ts")).href);
    const tools = await import(pathToFileURL(path.join(repo, "src/tools/index.ts")).href);
    return [{ core, tools }];
  }
  const formats = [];
  if (options.format === "esm" || options.format === "both") formats.push(await loadBuild("esm"));
  if (options.format === "cjs" || options.format === "both") formats.push(await loadBuild("cjs"));
  return formats;
}

const formats = await loadFormats();
const registries = formats.map(({ core, tools }) => core.createRegistry({ tools: tools.createFileTools() }));
// One run per task: a run remembers its reads and answers an unchanged re-read with a short note.
const runs = Array.from({ length: options.count }, (_, index) =>
  registries[index % registries.length].createRun({
    profile: "full",
    permissions: { sandbox: options.sandbox, workspace: options.workspace },
  }),
);
// Warm up (module code paths, the workspace's crash recovery) on runs of their own, so the timed
// part measures writes, not start-up.
for (const registry of registries) {
  const warm = registry.createRun({ profile: "full", permissions: { sandbox: options.sandbox, workspace: options.workspace } });
  await warm.call("read", { path: options.paths[0] });
  await warm.call("write", { path: ".warm-up", content: "" });
}
// With `ready` (a directory), say so there once warmed up: the bench starts its clock only when
// every writer is ready, so process start-up under load is never timed as writing.
if (options.ready !== undefined) writeFileSync(path.join(options.ready, String(process.pid)), "");
while (!existsSync(options.go)) await new Promise((resolve) => setTimeout(resolve, 2));

const versionIn = (text) => /v_[0-9a-f]{16}|v_absent/.exec(text)?.[0];
const results = [];
const started = performance.now();
await Promise.all(
  Array.from({ length: options.count }, async (_, index) => {
    const run = runs[index];
    const target = options.paths[index % options.paths.length];
    if (options.mode === "increment") {
      for (;;) {
        const read = await run.call("read", { path: target });
        const text = String(read.output);
        const value = Number(/\n\s*1\t(\d+)/.exec(text)?.[1] ?? "0");
        const result = await run.call("write", { path: target, content: `${value + 1}\n`, expected_version: versionIn(text) });
        if (result.ok) break;
        if (result.error.code !== "version_conflict") {
          results.push({ ok: false, code: result.error.code, message: result.error.message });
          return;
        }
      }
      results.push({ ok: true });
      return;
    }
    const content = `${options.tag}-${index}\n`;
    const input = { path: target, content, ...(options.mode === "once" ? { expected_version: options.expected } : {}) };
    const result = await run.call("write", input);
    results.push(result.ok ? { ok: true, content } : { ok: false, code: result.error.code, message: result.error.message });
  }),
);
process.stdout.write(`${JSON.stringify({ results, ms: performance.now() - started })}\n`);
