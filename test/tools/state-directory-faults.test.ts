// Fault round (stop 36): the catalog's state directory (the intent logs, by default in the
// temporary directory) on a read-only mount or a full disk while the workspace is writable. The
// log's errno was mapped by the changed file's path: `"a.txt" is on a read-only file system`,
// of a workspace that is writable (and `no space ... while writing "a.txt"`), so a model told the
// user their project was read-only or full. Now the error names the change log's directory.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { failure } from "../support/call-results.js";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";

const isRoot = process.getuid?.() === 0;
const SANDBOXES = ["workspace", "unrestricted"] as const;

let base: string;
let stateMount: string;
let restoreEnv: () => void;
beforeEach(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-state-faults-"));
  stateMount = path.join(base, "state");
  await mkdir(stateMount);
  restoreEnv = saveStateDirectoryEnv();
});
afterEach(async () => {
  restoreEnv();
  await rm(base, { recursive: true, force: true });
});

function runIn(sandbox: (typeof SANDBOXES)[number], workspace: string): Run {
  return createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

const changes = (run: Run) => ({
  write: run.call("write", { path: "a.txt", content: "new\n" }),
  "write new": run.call("write", { path: "b.txt", content: "new\n" }),
  edit: run.call("edit", { path: "a.txt", old_text: "old", new_text: "new" }),
  apply_patch: run.call("apply_patch", { patch: "*** Begin Patch\n*** Add File: c.txt\n+x\n*** End Patch" }),
});

async function workspaceWith(name: string): Promise<string> {
  const workspace = path.join(base, name);
  await mkdir(workspace);
  await writeFile(path.join(workspace, "a.txt"), "old\n");
  return workspace;
}

describe.skipIf(!isRoot)(
  "the state directory on a read-only mount or a full disk, the workspace writable (needs root to mount)",
  () => {
    beforeEach(() => {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", stateMount]);
      // The locks on a roomy disk: only the intent logs meet the fault.
      process.env.AGENT_TOOL_CATALOG_LOCK_DIR = path.join(base, "locks");
      process.env.AGENT_TOOL_CATALOG_STATE_DIR = path.join(stateMount, "state");
    });
    afterEach(() => {
      execFileSync("umount", [stateMount]);
    });

    it("read-only: each change is read_only_file_system naming the change log, not the file; control: writable again, it applies", async () => {
      for (const sandbox of SANDBOXES) {
        const workspace = await workspaceWith(sandbox);
        const run = runIn(sandbox, workspace);
        expect((await run.call("read", { path: "a.txt" })).ok).toBe(true);
        execFileSync("mount", ["-o", "remount,ro", stateMount]);
        try {
          for (const [tool, call] of Object.entries(changes(run))) {
            const error = failure(await call);
            expect([tool, error.code]).toEqual([tool, "read_only_file_system"]);
            expect(error.message, tool).toContain("change log");
            expect(error.message, tool).not.toMatch(/"[abc]\.txt" is on a read-only file system/);
            expect(error.message, tool).not.toContain(base);
            expect(error.message, tool).toContain("No file was changed");
          }
          expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old\n");
          // reading needs no log
          expect((await run.call("read", { path: "a.txt" })).ok).toBe(true);
        } finally {
          execFileSync("mount", ["-o", "remount,rw", stateMount]);
        }
        expect((await run.call("edit", { path: "a.txt", old_text: "old", new_text: "new" })).ok).toBe(true);
        expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("new\n");
      }
    });

    it("full: each change is no_space naming the change log, not the file; control: space freed, it applies", async () => {
      const filler = path.join(stateMount, "filler");
      for (const sandbox of SANDBOXES) {
        const workspace = await workspaceWith(sandbox);
        const run = runIn(sandbox, workspace);
        expect((await run.call("read", { path: "a.txt" })).ok).toBe(true);
        await writeFile(filler, Buffer.alloc(1024 * 1024)).catch(() => undefined);
        for (const [tool, call] of Object.entries(changes(run))) {
          const error = failure(await call);
          expect([tool, error.code]).toEqual([tool, "no_space"]);
          expect(error.message, tool).toContain("change log");
          expect(error.message, tool).not.toMatch(/while writing "[abc]\.txt"/);
        }
        expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old\n");
        await rm(filler);
        expect((await run.call("edit", { path: "a.txt", old_text: "old", new_text: "new" })).ok).toBe(true);
      }
    });
  },
);
