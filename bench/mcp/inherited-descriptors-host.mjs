// A host process for bench/mcp/spawn-descriptors.ts, started with N descriptors open without
// close-on-exec (its parent put them in its stdio array, as a supervisor or a shell leaves them).
// argv[2]: { rounds }. Per round, alternately: a plain `spawn` of /bin/true (stdio pipes), and the
// spawn a stdio MCP server gets (src/mcp/transports/inherited-descriptors.ts: the fd scan, then a
// stdio array putting /dev/null over each inherited descriptor), each until the child exits; and
// the scan alone. Prints medians (ms) of the host's CPU (user + system) and wall, and how many
// descriptors the scan found.
import { spawn } from "node:child_process";
import { performance } from "node:perf_hooks";

const { inheritableDescriptors, stdioClosingInherited } = await import("../../src/mcp/transports/inherited-descriptors.ts");
const { rounds } = JSON.parse(process.argv[2]);

async function timed(work) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

const exited = (child) =>
  new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });

const plain = async () => {
  await exited(spawn("/bin/true", [], { stdio: ["pipe", "pipe", "pipe"] }));
};
const closing = async () => {
  const { stdio, release } = stdioClosingInherited(["pipe", "pipe", "pipe"]);
  try {
    await exited(spawn("/bin/true", [], { stdio }));
  } finally {
    release();
  }
};
const scan = async () => {
  inheritableDescriptors();
};

const kinds = { plain, closing, scan };
const samples = Object.fromEntries(Object.keys(kinds).map((kind) => [kind, { cpuMs: [], wallMs: [] }]));
const names = Object.keys(kinds);
// Warm-up: one of each.
for (const name of names) await kinds[name]();
for (let r = 0; r < rounds; r++)
  for (let k = 0; k < names.length; k++) {
    const name = names[(r + k) % names.length];
    const sample = await timed(kinds[name]);
    samples[name].cpuMs.push(sample.cpuMs);
    samples[name].wallMs.push(sample.wallMs);
  }
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
const out = { inherited: inheritableDescriptors().length };
for (const name of names) out[name] = { cpuMs: median(samples[name].cpuMs), wallMs: median(samples[name].wallMs) };
process.stdout.write(`${JSON.stringify(out)}\n`);
