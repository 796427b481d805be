/**
 * Red team round 33: links a sandboxed command plants for the host's own tools. Inside the
 * sandbox `/proc/self/root` is the sandbox's root, but a link is text: read by the host, whose
 * `/proc/self` is the host process, `/proc/self/root/<path>` is the host's file, and so is
 * `/proc/thread-self/root/...`, `/proc/<host pid>/root/...` and `/proc/self/cwd/...` (the host's
 * working directory). A command under `workspace` (it cannot see the outside directory) makes links
 * to the outside secret and its directory through each of them; then `read`, `ls`, `glob` and
 * `grep` (both engines) are pointed at the links and at the workspace. Held when no answer holds
 * the secret or lists the outside file. Control: the same links, read by an unrestricted run, give
 * the secret.
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SECRET = `r33-proc-link-secret-${process.pid}`;
/** Matches the secret without being it (grep echoes its pattern). */
const PATTERN = "proc-link-s[e]cret";

describe.skipIf(bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 33, /proc links planted for the host's tools"),
  () => {
    let ground: Playground;
    beforeAll(async () => {
      ground = await playground();
      await writeFile(path.join(ground.outside, "secret-r33.txt"), `${SECRET}\n`);
    });
    afterAll(async () => {
      await ground.dispose();
    });

    escapeAttempt(
      "paths",
      "links to /proc/self/root, /proc/thread-self/root, /proc/<host pid>/root and /proc/self/cwd of an outside file, followed by read, ls, glob, grep",
      async () => {
        const secretFile = path.join(ground.outside, "secret-r33.txt");
        const fromCwd = path.relative(process.cwd(), secretFile);
        const targets = {
          "self-root": `/proc/self/root${secretFile}`,
          "thread-root": `/proc/thread-self/root${secretFile}`,
          "pid-root": `/proc/${process.pid}/root${secretFile}`,
          "self-cwd": `/proc/self/cwd/${fromCwd}`,
          "dir-root": `/proc/self/root${ground.outside}`,
        };
        const plant = Object.entries(targets)
          .map(([name, target]) => `ln -s ${quote(target)} ${name}`)
          .join(" && ");
        const planted = await sh(attackRun(ground.workspace, "workspace"), `${plant} && ls | wc -l`);
        expect(planted.stdout.trim()).toBe(String(Object.keys(targets).length));
        const run = attackRun(ground.workspace, "workspace");
        const answers: string[] = [];
        for (const name of Object.keys(targets)) answers.push(`${name}: ${outcome(await run.call("read", { path: name }))}`);
        answers.push(outcome(await run.call("ls", { path: "dir-root" })));
        answers.push(outcome(await run.call("ls", { path: "." })));
        answers.push(outcome(await run.call("glob", { pattern: "**/secret-r33*" })));
        answers.push(outcome(await run.call("glob", { pattern: "**/*", path: "dir-root" })));
        for (const engine of ["ripgrep", "javascript"] as const) {
          const grep = attackRun(ground.workspace, "workspace", { grep: { engine } });
          answers.push(outcome(await grep.call("grep", { pattern: PATTERN })));
          answers.push(outcome(await grep.call("grep", { pattern: PATTERN, path: "self-root" })));
          answers.push(outcome(await grep.call("grep", { pattern: PATTERN, path: "dir-root" })));
        }
        for (const answer of answers) {
          expect(answer).not.toContain(SECRET);
          expect(answer).not.toContain("secret-r33.txt");
        }
        // Control: the same links, followed by an unrestricted run, reach the file.
        const open = attackRun(ground.workspace, "unrestricted");
        // (ripgrep named: the JavaScript engine, which "auto" picks when the run's processes are busy,
        // does not search a link given as its path even unrestricted.)
        const openGrep = attackRun(ground.workspace, "unrestricted", { grep: { engine: "ripgrep" } });
        expect(outcome(await openGrep.call("grep", { pattern: PATTERN, path: "self-root" }))).toContain(SECRET);
        for (const name of ["self-root", "thread-root", "pid-root", "self-cwd"]) {
          expect(outcome(await open.call("read", { path: name })), name).toContain(SECRET);
        }
      },
      180_000,
    );
  },
);
