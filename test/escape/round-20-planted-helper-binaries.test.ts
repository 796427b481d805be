/**
 * Round 20 review: grep's ripgrep is started through an `sh` (to set its data limit), and that `sh`
 * was looked up on `PATH` without the workspace excluded, once per process. A `PATH` entry inside a
 * workspace (`/srv/proj/.venv/bin`, `node_modules/.bin` as an absolute entry) could then hold an
 * `sh` a sandboxed command wrote: bubblewrap started by root makes it root's on the host, mode 755,
 * so it passed the ownership check, and the host ran it as root for every later grep, in any run.
 * The same class for `rg` and `bash`: a copy trusted for one workspace could lie in another's.
 * Now the `sh` is only the system's `/bin/sh` or `/usr/bin/sh`, and no executable inside any
 * workspace a sandbox was made for in this process is trusted by any lookup.
 *
 * The precondition (a workspace whose parents are root's and not writable by others) is made with
 * a tmpfs on /mnt in a private mount namespace (`unshare -m`), so the test needs root.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect } from "vitest";
import { findTrustedExecutable } from "../../src/tools/sandbox/trusted-executable.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const execFileAsync = promisify(execFile);
const bubblewrap = capability("bubblewrap");
const ripgrep = findTrustedExecutable("rg");
const isRoot = process.getuid?.() === 0;
const support = path.join(import.meta.dirname, "support", "planted-helper-binaries.mjs");
const repo = path.resolve(import.meta.dirname, "..", "..");

describe.skipIf(bubblewrap.missing || !ripgrep.ok || !isRoot)(
  bubblewrap.label("escape attempts: round 20, planted helper binaries"),
  () => {
    escapeAttempt(
      "binaries",
      "an sh, rg or bash a command planted in a workspace directory on PATH is never what the host runs",
      async () => {
        const scratch = await mkdtemp(path.join(tmpdir(), "atc-planted-"));
        try {
          const { stdout } = await execFileAsync(
            "unshare",
            [
              "-m",
              "--propagation",
              "private",
              "sh",
              "-c",
              'mount -t tmpfs -o mode=0755 none /mnt && exec "$0" --import tsx "$@"',
              process.execPath,
              support,
              "/mnt",
              scratch,
            ],
            { cwd: repo, timeout: 90_000 },
          );
          const seen = JSON.parse(stdout.trim().split("\n").at(-1) as string) as {
            planted: { exitCode: number | null };
            hostUid: number;
            lookups: Record<string, string | null>;
            answer: string[] | string;
            ran: string;
            controlRan: boolean;
            bin: string;
          };
          // Setup: the command planted its files, the host sees them as root's, and they run.
          expect(seen.planted.exitCode).toBe(0);
          expect(seen.hostUid).toBe(0);
          expect(seen.controlRan, "the planted sh does not run even by name: the attack proves nothing").toBe(true);
          // The attack: the grep ran no planted file, and found the match (a real sh and rg ran).
          expect(seen.ran, "the host ran a file the command planted").toBe("");
          expect(seen.answer).toEqual(["needle"]);
          // No lookup chooses a planted file once a sandbox was made for that workspace.
          for (const [name, found] of Object.entries(seen.lookups)) {
            expect(found === null || !found.startsWith(seen.bin), `${name} was found at ${found}`).toBe(true);
          }
        } finally {
          await rm(scratch, { recursive: true, force: true });
        }
      },
      120_000,
    );
  },
);
