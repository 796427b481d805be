// Fault round (stop 36): a repository file that is a FIFO or socket where git keeps a regular
// file. The node driver read it as absent, so a FIFO `HEAD` or `packed-refs` answered "no
// commits yet" (a state that is not on disk), a FIFO loose object missing_object (the hint: fetch
// it), a FIFO loose ref fell back to the packed one; through a host fs client a FIFO `HEAD`
// blocked the call for good. Now each is corrupt_object naming the file, at once.
import { execFileSync } from "node:child_process";
import * as nodeFs from "node:fs";
import { closeSync, constants, cpSync, openSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import path from "node:path";
import type { Run, ToolCallResult } from "agent-tool-catalog";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { LogSearchOutput } from "../../src/git/index.js";
import { settleWithin } from "../support/settle-within.js";
import { FixtureRepository, git, removeDirectory, temporaryDirectory } from "./support/git-fixture.js";
import { logIds } from "./support/git-oracle.js";
import { failure, gitRun, output } from "./support/git-run.js";
import { ALICE, buildHistoryFixture } from "./support/history-fixture.js";

const EVERY_TOOL: [string, Record<string, unknown>][] = [
  ["git_log_search", { query: "needle" }],
  ["git_file_history", { path: "README.md" }],
  ["git_blame_context", { path: "README.md", line: 1 }],
  ["git_diff_range", { from: "HEAD~1" }],
  ["git_contributor_context", {}],
];

let packed: string;
const cleanup: string[] = [];
beforeAll(() => {
  packed = buildHistoryFixture("special").directory;
  cleanup.push(packed);
  git(packed, ["gc", "-q"]);
});
afterAll(() => {
  for (const directory of cleanup) removeDirectory(directory);
});

function copyOf(source: string): string {
  const directory = temporaryDirectory("special-copy");
  cleanup.push(directory);
  rmSync(directory, { recursive: true });
  cpSync(source, directory, { recursive: true });
  return directory;
}

function fifoAt(file: string): void {
  rmSync(file, { force: true });
  execFileSync("mkfifo", [file]);
}

/** A FIFO a call may still be blocked on (the old code): a writer that opens and closes ends its read. */
const fifos: string[] = [];
afterEach(() => {
  for (const fifo of fifos.splice(0)) {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
    } catch {
      // nobody reads it: nothing to release
    }
  }
});

/** `call`'s answer, or a rejection after 3 s; the timer is cleared once the call settles, so none outlives the file. */
function within(call: Promise<ToolCallResult>, label: string): Promise<ToolCallResult> {
  return settleWithin(call, 3000, () => {
    throw new Error(`${label}: no answer in 3 s`);
  });
}

async function expectDamaged(run: Run, file: string, what: string, tools = EVERY_TOOL): Promise<void> {
  for (const [name, args] of tools) {
    const error = failure(await within(run.call(name, args), name));
    expect(error.code, `${name}: ${error.message}`).toBe("corrupt_object");
    expect(error.message, name).toContain(`"${file}" is ${what}`);
  }
}

describe("repository files that are FIFOs or sockets are corrupt_object, never absent", () => {
  it("control: the packed repository answers every tool, as git does", async () => {
    const run = gitRun(copyOf(packed));
    for (const [name, args] of EVERY_TOOL) expect((await run.call(name, args)).ok, name).toBe(true);
    const log = output<LogSearchOutput>(await run.call("git_log_search", { query: "needle", mode: "message" }));
    expect(log.commits.map((match) => match.sha)).toEqual(
      logIds(packed, ["-i", "-F", "--grep=needle"]).map((id) => id.slice(0, 10)),
    );
  });

  it("a FIFO HEAD (it said: no commits yet)", async () => {
    const directory = copyOf(packed);
    fifoAt(path.join(directory, ".git/HEAD"));
    await expectDamaged(gitRun(directory), ".git/HEAD", "a named pipe (FIFO)");
  });

  it("a FIFO packed-refs (it said: HEAD points to refs/heads/main, which does not exist)", async () => {
    const directory = copyOf(packed);
    fifoAt(path.join(directory, ".git/packed-refs"));
    await expectDamaged(gitRun(directory), ".git/packed-refs", "a named pipe (FIFO)");
  });

  it("a FIFO loose ref over a packed one (it answered from the packed one)", async () => {
    const directory = copyOf(packed);
    fifoAt(path.join(directory, ".git/refs/heads/main"));
    await expectDamaged(gitRun(directory), ".git/refs/heads/main", "a named pipe (FIFO)");
  });

  it("a socket as HEAD, under the workspace sandbox too", async () => {
    const directory = copyOf(packed);
    rmSync(path.join(directory, ".git/HEAD"));
    const server: Server = createServer();
    await new Promise<void>((resolve) => server.listen(path.join(directory, ".git/HEAD"), resolve));
    try {
      await expectDamaged(gitRun(directory, {}, "workspace"), ".git/HEAD", "a socket");
    } finally {
      server.close();
    }
  });

  it("a FIFO loose object (it said: missing_object, fetch it); other files of the same commit still read", async () => {
    const repository = new FixtureRepository(copyOf(packed));
    repository.write("README.md", "# Demo\n\nChanged.\n").commit("change the readme", ALICE);
    const blob = git(repository.directory, ["rev-parse", "HEAD:README.md"]).trim();
    fifoAt(path.join(repository.directory, ".git/objects", blob.slice(0, 2), blob.slice(2)));
    const run = gitRun(repository.directory);
    await expectDamaged(run, `.git/objects/${blob.slice(0, 2)}/${blob.slice(2)}`, "a named pipe (FIFO)", [
      ["git_blame_context", { path: "README.md", line: 1 }],
      ["git_file_history", { path: "README.md" }],
    ]);
    // control: a file whose blob is packed and whole is read in the same run
    expect((await run.call("git_blame_context", { path: "notes.txt", line: 1 })).ok).toBe(true);
  });

  it("through a host fs client: a FIFO HEAD is refused at once instead of blocking the call for good", async () => {
    const directory = copyOf(packed);
    const head = path.join(directory, ".git/HEAD");
    fifoAt(head);
    fifos.push(head);
    await expectDamaged(gitRun(directory, { fs: nodeFs }), ".git/HEAD", "a named pipe (FIFO)", EVERY_TOOL.slice(0, 1));
    // control: the same host fs client reads the repository once HEAD is a file again
    rmSync(head);
    nodeFs.writeFileSync(head, "ref: refs/heads/main\n");
    expect((await gitRun(directory, { fs: nodeFs }).call("git_log_search", { query: "needle" })).ok).toBe(true);
  });
});
