// The built package checks untrusted schemas in its own worker thread file
// (dist/schema-check-thread.{js,cjs}): from ESM and from CommonJS, a schema that checks nested
// arguments in 2^depth steps fails the call with input_schema_too_slow while the host's event loop
// keeps turning (no block of 400 ms of the host thread's CPU time), shallow arguments check and run, and the idle thread lets the process exit.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const dist = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "dist");

const body = `
  const doubleCheck = {
    type: "object",
    properties: { tree: { $ref: "#/$defs/node" } },
    $defs: {
      node: {
        type: "object",
        anyOf: [
          { allOf: [{ properties: { child: { $ref: "#/$defs/node" } } }, { required: ["never"] }] },
          { properties: { child: { $ref: "#/$defs/node" } } },
        ],
      },
    },
  };
  const nested = (depth) => {
    let node = {};
    for (let level = 0; level < depth; level++) node = { child: node };
    return { tree: node };
  };
  const registry = catalog.createRegistry();
  registry.register(catalog.defineTool({
    name: "double_check",
    description: "A tool whose schema checks nested arguments in 2^depth steps.",
    inputSchema: catalog.untrustedJsonSchema(doubleCheck, { timeoutMs: 1000 }),
    handler: () => "ran",
  }));
  const run = registry.createRun();
  const shallow = await run.call("double_check", nested(3));
  // The longest block of this (the host's) thread, in its own CPU time: what it ran between ticks
  // 10 ms apart (Linux schedstat, ns). The wall-clock gaps of monitorEventLoopDelay also count the
  // time a loaded machine keeps the thread waiting for a core: 536 ms with two suites on 2 cores,
  // of which the thread ran under 2 ms (schedstat: the rest waiting in the run queue).
  const cpuMs = () => Number(fs.readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  const tick = () => new Promise((resolve) => setTimeout(resolve, 50));
  const longestBlock = async (work) => {
    const delay = perfHooks.monitorEventLoopDelay({ resolution: 10 });
    let last = cpuMs();
    let longest = 0;
    const sample = () => {
      const now = cpuMs();
      longest = Math.max(longest, now - last);
      last = now;
    };
    const sampler = setInterval(sample, 10);
    delay.enable();
    await tick();
    const result = await work();
    await tick();
    delay.disable();
    clearInterval(sampler);
    sample();
    return { result, cpuMs: longest, wallMs: delay.max / 1e6 };
  };
  const deep = await longestBlock(() => run.call("double_check", nested(40)));
  // Control: the measure sees a block of 450 ms of this thread's CPU time.
  const control = await longestBlock(async () => {
    const until = cpuMs() + 450;
    while (cpuMs() < until);
  });
  const invalid = await run.call("double_check", { tree: 5 });
  console.log(JSON.stringify({
    shallow,
    deep: deep.result,
    invalid,
    longestBlock: { cpuMs: deep.cpuMs, wallMs: deep.wallMs },
    controlBlock: { cpuMs: control.cpuMs, wallMs: control.wallMs },
  }));
`;

const scripts = {
  esm: [
    "--input-type=module",
    "-e",
    `import * as catalog from ${JSON.stringify(join(dist, "index.js"))};
     import * as perfHooks from "node:perf_hooks";
     import * as fs from "node:fs";
     ${body}`,
  ],
  cjs: [
    "-e",
    `const catalog = require(${JSON.stringify(join(dist, "index.cjs"))});
     const perfHooks = require("node:perf_hooks");
     const fs = require("node:fs");
     (async () => { ${body} })();`,
  ],
};

describe("untrusted schemas from the built package", () => {
  it.each(["esm", "cjs"] as const)(
    "from %s: checked in the worker thread, with a time limit",
    async (format) => {
      expect(existsSync(join(dist, "schema-check-thread.js")), "run `npm run build` first").toBe(true);
      // Depth 40 is 2^40 steps: on the host's thread this call would never return. The process
      // must also exit by itself (the idle thread holds no reference), well before this timeout.
      const { stdout } = await promisify(execFile)(process.execPath, scripts[format], { timeout: 60_000 });
      type Block = { cpuMs: number; wallMs: number };
      const outcome = JSON.parse(stdout) as Record<string, { ok: boolean; error?: { code: string } }> & {
        longestBlock: Block;
        controlBlock: Block;
      };
      expect(outcome.shallow).toMatchObject({ ok: true, output: "ran" });
      expect(outcome.deep).toMatchObject({
        ok: false,
        error: { code: "input_schema_too_slow", message: expect.stringMatching(/took longer than 1000 ms/) },
      });
      expect(outcome.invalid).toMatchObject({ ok: false, error: { code: "invalid_input" } });
      // The host thread never ran 400 ms without turning its event loop (its CPU time, not the
      // wall clock: see the child's longestBlock); the control shows the measure sees such a block.
      expect(outcome.longestBlock.cpuMs, JSON.stringify(outcome.longestBlock)).toBeLessThan(400);
      expect(outcome.controlBlock.cpuMs, JSON.stringify(outcome.controlBlock)).toBeGreaterThanOrEqual(450);
    },
    90_000,
  );
});
