// A close(2) that fails after a write the kernel took (NFS and FUSE report a lost write-back only
// then) left files behind: the lock file of a live process (every later write of that file waited
// a minute and failed `file_locked` while the process ran), the `.next` record of an intent log,
// and the host's `.tmp` file of a profile or skill. Every path now removes what it made and
// reports the failure; the files it was changing stay as they were, as the error says.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeTextFileAtomic } from "../../src/host/shared/atomic-file.js";
import { failure, okText } from "../support/call-results.js";
import { type FailingCloses, failClosesAfterWrites } from "../support/failing-closes.js";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";

let base: string;
let files: string;
let fault: FailingCloses | undefined;
const restoreStateDirectoryEnv = saveStateDirectoryEnv();
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-close-faults-"));
  files = path.join(base, "files");
  for (let i = 0; i < 3; i++) {
    await mkdir(path.join(files, `d${i}`), { recursive: true });
    await writeFile(path.join(files, `d${i}`, "f.txt"), `old ${i}\n`);
  }
  process.env.AGENT_TOOL_CATALOG_LOCK_DIR = path.join(base, "locks");
  process.env.AGENT_TOOL_CATALOG_STATE_DIR = path.join(base, "state");
});
afterEach(async () => {
  fault?.restore();
  fault = undefined;
  restoreStateDirectoryEnv();
  await rm(base, { recursive: true, force: true });
});

function runIn(): Run {
  return createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace: files },
  });
}
const patch = [
  "*** Begin Patch",
  ...[0, 1, 2].flatMap((i) => [`*** Update File: d${i}/f.txt`, `-old ${i}`, `+new ${i}`]),
  "*** End Patch",
].join("\n");

/** Every file below `directory` (relative paths); none when it does not exist. */
async function filesBelow(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)));
}
async function contents(): Promise<string[]> {
  return Promise.all([0, 1, 2].map((i) => readFile(path.join(files, `d${i}`, "f.txt"), "utf8")));
}
const unchanged = ["old 0\n", "old 1\n", "old 2\n"];

describe("a close that fails after a successful write leaves nothing behind", () => {
  it("lock and owner files: write and apply_patch fail, no lock is left, and the next call works at once", async () => {
    const run = runIn();
    // Lock files and owner files hold this process's identity, "pid:start-time".
    fault = await failClosesAfterWrites((text) => text.startsWith(`${process.pid}:`));
    for (const [tool, input] of [
      ["write", { path: "d0/f.txt", content: "new 0\n" }],
      ["apply_patch", { patch }],
    ] as const) {
      const error = failure(await run.call(tool, input));
      expect(await filesBelow(path.join(base, "locks"))).toEqual([]);
      expect(await contents()).toEqual(unchanged);
      expect([tool, error.code]).toEqual([tool, "file_system_error"]);
      expect(error.message).toContain("(EIO). Nothing was changed.");
      expect(error.message, tool).not.toContain(base);
    }
    expect(fault.failed).toBeGreaterThanOrEqual(2);
    // positive control: without the fault, the same calls take the locks and change the files at once
    fault.restore();
    const started = Date.now();
    okText(await run.call("write", { path: "d0/f.txt", content: "written 0\n" }));
    okText(await run.call("apply_patch", { patch: patch.replace("-old 0\n+new 0", "-written 0\n+new 0") }));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(await contents()).toEqual(["new 0\n", "new 1\n", "new 2\n"]);
    expect(await filesBelow(path.join(base, "locks"))).toEqual([]);
  }, 30_000);

  it("the committed intent record: apply_patch fails saying nothing changed, and leaves no record or temporary file", async () => {
    const run = runIn();
    fault = await failClosesAfterWrites((text) => text.includes('"state":"committed"'));
    const error = failure(await run.call("apply_patch", { patch }));
    expect(fault.failed).toBe(1);
    expect(error.message).toContain("No file was changed");
    expect(error.message).not.toContain(base);
    expect(await contents()).toEqual(unchanged);
    expect(await filesBelow(path.join(base, "state"))).toEqual([]);
    expect((await filesBelow(files)).sort()).toEqual(["d0/f.txt", "d1/f.txt", "d2/f.txt"]);
    // positive control: the same patch applies, and its log is gone once it is on disk
    fault.restore();
    okText(await run.call("apply_patch", { patch }));
    expect(await contents()).toEqual(["new 0\n", "new 1\n", "new 2\n"]);
    expect(await filesBelow(path.join(base, "state"))).toEqual([]);
  });

  it("the host's atomic write (profiles, skills, prompt extensions): it throws and leaves no temporary file", async () => {
    const directory = path.join(base, "profiles");
    await mkdir(directory);
    fault = await failClosesAfterWrites((text) => text === "profile: faulty\n");
    await expect(writeTextFileAtomic(path.join(directory, "p.yaml"), "profile: faulty\n")).rejects.toMatchObject({ code: "EIO" });
    await expect(
      writeTextFileAtomic(path.join(directory, "q.yaml"), "profile: faulty\n", { exclusive: true }),
    ).rejects.toMatchObject({ code: "EIO" });
    expect(await readdir(directory)).toEqual([]);
    // positive control: other content is written
    await writeTextFileAtomic(path.join(directory, "p.yaml"), "profile: fine\n");
    expect(await readdir(directory)).toEqual(["p.yaml"]);
    expect(await readFile(path.join(directory, "p.yaml"), "utf8")).toBe("profile: fine\n");
  });
});
