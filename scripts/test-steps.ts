/**
 * `npm test`: every check, with the independent ones side by side. typecheck, docs:check and the
 * build's declaration pass are each one single-threaded compiler run, so one after another they
 * leave a core of a 2-core machine idle. The unit tests need only the build's JavaScript (their
 * child processes load dist/), which esbuild makes in seconds; the declarations (about a minute of
 * compiler) are built beside the tests, and only api:check and package:check wait for them. The
 * build is the same `npm run build` in two phases (tsup.config.ts, `ATC_BUILD_PHASE`), except that
 * the declarations are not compiled a second time: typecheck emits every file's declarations in
 * its one compiler pass (`typecheck:emit`, into temp/declarations), and build:types only rolls
 * them up into dist/ (`ATC_DECLARATIONS`; the same files as tsup's dts build from src/, which
 * type-checked src/ again: 111 CPU-s alone, now 4). Order of what waits on what:
 *
 *   typecheck, lint, docs:check, build:js   (at once)
 *   build:js             -> test:unit
 *   build:js + typecheck -> build:types
 *   build:types          -> api:check, package:check
 *
 * Each step's output is printed whole when it ends (never interleaved). The first step that fails
 * stops the others and fails the run, as `a && b && c` did; what ran is listed with its time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

interface Step {
  /** How the step is named in the output and in `after`. */
  readonly name: string;
  /** The npm script (package.json `scripts`) and the arguments added to its command. */
  readonly script: string;
  /** Added to the environment of the script. */
  readonly env?: Readonly<Record<string, string>>;
  /** The steps it waits for: it starts when the last of them has passed. */
  readonly after?: readonly string[];
}

/** Where typecheck writes the declarations build:types rolls up (package.json `typecheck:emit`). */
const DECLARATIONS = "temp/declarations";

const STEPS: readonly Step[] = [
  { name: "typecheck", script: "typecheck:emit" },
  { name: "lint", script: "lint" },
  { name: "docs:check", script: "docs:check" },
  { name: "build:js", script: "build", env: { ATC_BUILD_PHASE: "js" } },
  // The vitest type tests (project `types`: test/types, `expectTypeOf`) are compiled by `typecheck`
  // above with the same tsconfig: a second whole-project tsc inside vitest would only repeat it.
  { name: "test:unit", script: "test:unit --project shared --project isolated --project own-process", after: ["build:js"] },
  {
    name: "build:types",
    script: "build:types",
    env: { ATC_BUILD_PHASE: "types", ATC_DECLARATIONS: DECLARATIONS },
    after: ["build:js", "typecheck"],
  },
  { name: "api:check", script: "api:check", after: ["build:types"] },
  { name: "package:check", script: "package:check", after: ["build:types"] },
];

const root = fileURLToPath(new URL("..", import.meta.url));
const scripts = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as { scripts: Record<string, string> })
  .scripts;
// The scripts' commands run as `npm run` would run them (`sh -c`, node_modules/.bin first on PATH,
// the arguments appended) but without an npm process per step: npm's own start cost about 0.3
// CPU-s a step (`npm run --silent typecheck:emit -- --version` 0.54-0.73 CPU-s, 5 runs; the same
// command by `sh -c` 0.27-0.41), 8 steps each `npm test`.
const binaries = path.join(root, "node_modules", ".bin");

const running = new Map<string, ChildProcess>();
const passed = new Set<string>();
const started = Date.now();
const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
let failed = false;

function start(step: Step): void {
  const [script, ...args] = step.script.split(" ");
  const command = scripts[script as string];
  if (command === undefined) throw new Error(`npm test: package.json has no script ${script}`);
  const began = Date.now();
  // Its own process group, so a failure elsewhere stops the step's children too (vitest's workers).
  const child = spawn("sh", ["-c", [command, ...args].join(" ")], {
    cwd: root,
    env: { ...process.env, ...step.env, PATH: `${binaries}${path.delimiter}${process.env.PATH ?? ""}` },
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.set(step.name, child);
  process.stdout.write(`--- ${step.name} started at ${seconds(started)}\n`);
  const output: Buffer[] = [];
  child.stdout?.on("data", (chunk: Buffer) => output.push(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.push(chunk));
  child.once("close", (code, signal) => {
    running.delete(step.name);
    if (failed) return;
    const ok = code === 0;
    process.stdout.write(`\n=== ${step.name}: ${ok ? "ok" : `FAILED (${signal ?? `exit ${code}`})`} in ${seconds(began)}\n`);
    process.stdout.write(Buffer.concat(output));
    if (!ok) {
      failed = true;
      for (const other of running.values()) stop(other);
      process.stdout.write(`\nnpm test failed at ${step.name} after ${seconds(started)}\n`);
      process.exitCode = 1;
      return;
    }
    passed.add(step.name);
    for (const next of STEPS) {
      if (next.after?.includes(step.name) && next.after.every((name) => passed.has(name))) start(next);
    }
    if (running.size === 0) process.stdout.write(`\nnpm test: all ${STEPS.length} steps passed in ${seconds(started)}\n`);
  });
}

function stop(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
  } catch {
    // Already gone.
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    failed = true;
    for (const child of running.values()) stop(child);
    process.exit(1);
  });
}

// Declarations of files since deleted must not linger where build:types reads them.
rmSync(DECLARATIONS, { recursive: true, force: true });
for (const step of STEPS) if (step.after === undefined) start(step);
