/**
 * Setup file of the `shared` test project (vitest.config.ts), whose files run one after another
 * in a worker that keeps its module graph (`isolate: false`). A file there must leave the process
 * as it found it: what it changes in the environment, the working directory or the umask would
 * silently change the files that happen to run after it in the same worker, and which those are
 * depends on scheduling. So a file that leaves such a change fails itself, naming it, whatever
 * runs next. (Module state of the library, e.g. a process-wide warning budget, cannot be checked
 * this way: files whose point is a fresh process stay in the isolated project.)
 */
import { afterAll, beforeAll } from "vitest";

let environment: Record<string, string | undefined> = {};
let directory = "";
let mask = 0;

function currentUmask(): number {
  // Read it by setting it: `process.umask()` without an argument is deprecated (DEP0139).
  const previous = process.umask(0o022);
  process.umask(previous);
  return previous;
}

beforeAll(() => {
  environment = { ...process.env };
  directory = process.cwd();
  mask = currentUmask();
});

afterAll(() => {
  const left: string[] = [];
  for (const name of new Set([...Object.keys(environment), ...Object.keys(process.env)])) {
    if (environment[name] !== process.env[name]) left.push(`environment variable ${name}`);
  }
  if (process.cwd() !== directory) left.push(`working directory (${directory} -> ${process.cwd()})`);
  const now = currentUmask();
  if (now !== mask) left.push(`umask (${mask.toString(8)} -> ${now.toString(8)})`);
  if (left.length > 0) {
    throw new Error(
      `This test file changed process state that the next file in its worker would inherit (the shared project runs without isolation): ${left.join(", ")}. Restore it in afterEach/afterAll, or move the file to the isolated project in vitest.config.ts.`,
    );
  }
});
