// One multi-file change in this process, for bench/tools/file-transaction-cost.ts: argv[2] is
// { workspace, files, dirs, limit?, mode }. File `i` is in directory `d{i % dirs}`; the even ones
// exist ("old i") and are updated, the odd ones are added; every file ends "new i".
// `mode` is how the change is written:
//   "apply_patch"  run.call("apply_patch") from src (sandbox "workspace"): locks, intent log,
//                  flushes, restore copies of the replaced files, groups of directories under `limit`;
//   "plain"        writeFileSync of a temporary file beside each, then renameSync over it;
//   "flushed"      "plain" with an fsync of every temporary file and of every directory;
//   "copies"       "flushed" plus, before the renames, a flushed copy of each replaced file's old
//                  content beside it (as the restore copies are), removed at the end.
// The open-file limit is lowered (prlimit, as the group tests do) after src is loaded, and one
// small change runs first in a scratch directory, so the timing is of a warm process. Prints
// { cpuMs, wallMs } of the measured change (process.cpuUsage: user + system).
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { lowerOpenFileLimit } from "../../test/tools/support/lower-open-file-limit.mjs";

const { workspace, files, dirs, limit, mode } = JSON.parse(process.argv[2]);
const core = await import("../../src/index.ts");
const tools = await import("../../src/tools/index.ts");
if (limit !== undefined) lowerOpenFileLimit(limit);

const target = (i) => path.join(workspace, `d${i % dirs}`, `f${i}.txt`);

function writeFlushed(file, content) {
  const fd = openSync(file, "wx");
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

function plain(root, count, spread, flush, copies) {
  const kept = [];
  const temporaries = [];
  for (let i = 0; i < count; i++) {
    const file = path.join(root, `d${i % spread}`, `f${i}.txt`);
    if (copies && i % 2 === 0) {
      const copy = `${file}.restore.tmp`;
      writeFlushed(copy, readFileSync(file));
      kept.push(copy);
    }
    const temporary = `${file}.tmp`;
    if (flush) writeFlushed(temporary, `new ${i}\n`);
    else writeFileSync(temporary, `new ${i}\n`);
    temporaries.push([temporary, file]);
  }
  for (const [temporary, file] of temporaries) renameSync(temporary, file);
  if (flush)
    for (let d = 0; d < Math.min(spread, count); d++) {
      const fd = openSync(path.join(root, `d${d}`), "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    }
  for (const copy of kept) unlinkSync(copy);
}

function patchOf(count, spread) {
  const lines = ["*** Begin Patch"];
  for (let i = 0; i < count; i++) {
    const file = `d${i % spread}/f${i}.txt`;
    if (i % 2 === 0) lines.push(`*** Update File: ${file}`, `-old ${i}`, `+new ${i}`);
    else lines.push(`*** Add File: ${file}`, `+new ${i}`);
  }
  lines.push("*** End Patch");
  return lines.join("\n");
}

async function change(root, count, spread) {
  if (mode === "apply_patch") {
    const run = core.createRegistry({ tools: tools.createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace: root },
    });
    const result = await run.call("apply_patch", { patch: patchOf(count, spread) });
    if (!result.ok) throw new Error(`apply_patch failed: ${JSON.stringify(result.error).slice(0, 600)}`);
  } else plain(root, count, spread, mode !== "plain", mode === "copies");
}

// Warm-up: the same kind of change on 4 files of a scratch directory beside the workspace.
const scratch = `${workspace}-warm`;
rmSync(scratch, { recursive: true, force: true });
for (let d = 0; d < 2; d++) mkdirSync(path.join(scratch, `d${d}`), { recursive: true });
for (let i = 0; i < 4; i += 2) writeFileSync(path.join(scratch, `d${i % 2}`, `f${i}.txt`), `old ${i}\n`);
await change(scratch, 4, 2);
rmSync(scratch, { recursive: true, force: true });

const cpu = process.cpuUsage();
const started = performance.now();
await change(workspace, files, dirs);
const wallMs = performance.now() - started;
const used = process.cpuUsage(cpu);
for (let i = 0; i < files; i++)
  if (readFileSync(target(i), "utf8") !== `new ${i}\n`) throw new Error(`${mode}: file ${i} not written`);
process.stdout.write(`${JSON.stringify({ cpuMs: (used.user + used.system) / 1000, wallMs })}\n`);
