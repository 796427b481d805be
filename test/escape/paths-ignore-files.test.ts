/**
 * Escape attempts through the ignore files the JavaScript grep engine reads on the host
 * (`.gitignore`, `.ignore`, `.git/info/exclude`; the engine answers when ripgrep is missing or
 * the run's budget is full): a sandboxed command makes one a link to a host file (whose lines
 * would then decide which workspace files are searched: an oracle on the host file), a named
 * pipe (a host thread blocked for good; four stop every file operation of the host process) or
 * a link to `/dev/zero` (gigabytes read on the host). Controls: the same ignore file as a
 * regular file is applied, the link is followed where the run is not confined, and a plain host
 * read of the pipe does block.
 */
import { spawnSync } from "node:child_process";
import { lstatSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, outcome, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const JAVASCRIPT = { grep: { engine: "javascript", searchTimeoutMs: 2_000 } } as const;
/**
 * The named pipe's six parallel searches: a search blocked for good never answers, whatever its
 * wall-clock timeout, so this bound only says when to stop waiting. At 2 s one of the six ended
 * `timeout` at load 20 on 2 cores (a batch of heavy files beside busy loops): six searches, each
 * starting a matcher thread, sharing the cores with the load.
 */
const JAVASCRIPT_PARALLEL = { grep: { engine: "javascript", searchTimeoutMs: 15_000 } } as const;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: ignore files of the JavaScript grep engine"), () => {
  let ground: Playground;
  let counter = 0;
  beforeAll(async () => {
    ground = await playground();
    // A host file whose lines the attacker probes: does it hold the line "probe-name.txt"?
    writeFileSync(path.join(ground.outside, "host-list"), "probe-name.txt\n");
  });
  afterAll(async () => ground.dispose());

  /** A new directory of the workspace with two files holding `needle`, made by the model's bash. */
  async function directory(setup: string): Promise<string> {
    const name = `d${++counter}`;
    const made = await sh(
      attackRun(ground.workspace, "workspace"),
      `mkdir -p ${name} && cd ${name} && echo needle > probe-name.txt && echo needle > other.txt && ${setup} && echo made`,
    );
    expect(made.stdout, made.text).toContain("made");
    return name;
  }

  for (const ignoreFile of [".gitignore", ".ignore", ".git/info/exclude"]) {
    escapeAttempt("paths", `a ${ignoreFile} linked to a host file is read on the host (JavaScript grep)`, async () => {
      const hostList = path.join(ground.outside, "host-list");
      const name = await directory(`mkdir -p .git/info && ln -s ${quote(hostList)} ${ignoreFile}`);
      // .git/info/exclude counts at the workspace root only: the directory is the run's workspace.
      const root = path.join(ground.workspace, name);
      if (ignoreFile.startsWith(".git/")) {
        // A link out of a git directory is moved aside after the command that made it (round 38):
        // put back on the host, as a link made while no command ran, for the grep engine to meet.
        expect(lstatSync(path.join(root, ignoreFile), { throwIfNoEntry: false })).toBeUndefined();
        symlinkSync(hostList, path.join(root, ignoreFile));
      }
      const confined = outcome(await attackRun(root, "workspace", JAVASCRIPT).call("grep", { pattern: "needle" }));
      expect(confined).toContain("probe-name.txt:1:needle");
      expect(confined).toContain("other.txt:1:needle");
      // Control: not confined, the link is followed and the host file's line hides the file.
      const followed = outcome(await attackRun(root, "unrestricted", JAVASCRIPT).call("grep", { pattern: "needle" }));
      expect(followed).toContain("other.txt:1:needle");
      expect(followed).not.toContain("probe-name.txt");
    });
  }

  it("control: a .gitignore inside the workspace is still applied", async () => {
    const name = await directory("echo probe-name.txt > .gitignore");
    const answer = outcome(
      await attackRun(ground.workspace, "workspace", JAVASCRIPT).call("grep", { pattern: "needle", path: name }),
    );
    expect(answer).toContain("other.txt:1:needle");
    expect(answer).not.toContain("probe-name.txt");
  });

  escapeAttempt(
    "resources",
    "a .gitignore made a named pipe blocks the host's thread pool for good",
    async () => {
      const name = await directory("mkfifo .gitignore");
      const fifo = path.join(ground.workspace, name, ".gitignore");
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      // Six parallel searches, more than libuv's four threads: each must answer, and the host's
      // own file reads go on.
      for (const scope of ["workspace", "unrestricted"] as const) {
        const run = attackRun(ground.workspace, scope, JAVASCRIPT_PARALLEL);
        const answers = await Promise.all(
          Array.from({ length: 6 }, () => run.call("grep", { pattern: "needle", path: name }).then(outcome)),
        );
        for (const answer of answers) expect(answer, scope).toContain("probe-name.txt:1:needle");
      }
      const started = performance.now();
      await readFile("/etc/hostname").catch(() => readFile("/etc/passwd"));
      expect(performance.now() - started).toBeLessThan(1_000);
      // Control, in a child process (it never returns): a plain read of the pipe blocks.
      const plain = spawnSync(process.execPath, ["-e", `require("fs").readFileSync(${JSON.stringify(fifo)})`], {
        timeout: 1_000,
      });
      expect(plain.signal).toBe("SIGTERM");
    },
    60_000,
  );

  escapeAttempt("resources", "a .gitignore linked to /dev/zero makes the host read gigabytes", async () => {
    const name = await directory("ln -s /dev/zero .gitignore");
    const peakBefore = process.resourceUsage().maxRSS;
    for (const scope of ["workspace", "unrestricted"] as const) {
      const answer = outcome(
        await attackRun(ground.workspace, scope, JAVASCRIPT).call("grep", { pattern: "needle", path: name }),
      );
      expect(answer, scope).toContain("probe-name.txt:1:needle");
    }
    // maxRSS is in KiB: the searches may not have raised the process's peak by 256 MiB.
    expect(process.resourceUsage().maxRSS - peakBefore).toBeLessThan(256 * 1024);
    // Control: the link does lead to an endless device.
    const head = spawnSync("head", ["-c", "4", path.join(ground.workspace, name, ".gitignore")]);
    expect(head.stdout.length).toBe(4);
  });
});
