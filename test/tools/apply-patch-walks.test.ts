import fs, { constants } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

const DIRECTORIES = 30;
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-walks-"));
  for (let index = 0; index < DIRECTORIES; index++) {
    await mkdir(path.join(workspace, `d${index}`));
    await writeFile(path.join(workspace, `d${index}`, "f.txt"), `line ${index}\n`);
  }
});
afterEach(async () => {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  await rm(workspace, { recursive: true, force: true });
});

/** One hunk in each of the directories' files. */
const patch = Array.from(
  { length: DIRECTORIES },
  (_, index) => `--- a/d${index}/f.txt\n+++ b/d${index}/f.txt\n@@ -1 +1 @@\n-line ${index}\n+LINE ${index}\n`,
).join("");

/**
 * Runs the patch counting the directories opened synchronously (`O_DIRECTORY`): the batched walks
 * open every directory that way, one `openSync` per directory per walk.
 */
async function directoryOpensOf(approval: "none" | "destructive"): Promise<number> {
  const approvals = new InMemoryApprovalBroker();
  approvals.events.on("approval.requested", (request) => void approvals.approve(request.id));
  const run = createRegistry({ approvals, tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace, approval },
  });
  // Whatever the run does before the call (its first recovery of the workspace) is not counted.
  expect((await run.call("ls", { path: "." })).ok).toBe(true);
  const original = fs.openSync;
  let opens = 0;
  vi.spyOn(fs, "openSync").mockImplementation((file, flags, mode) => {
    if (typeof flags === "number" && (flags & constants.O_DIRECTORY) !== 0) opens++;
    return original(file, flags, mode);
  });
  syncBuiltinESMExports();
  const result = await run.call("apply_patch", { patch });
  vi.restoreAllMocks();
  syncBuiltinESMExports();
  expect(result.ok ? "ok" : result.error.message).toBe("ok");
  expect(await readFile(path.join(workspace, "d7", "f.txt"), "utf8")).toBe("LINE 7\n");
  return opens;
}

describe("apply_patch walks the patch's directories", () => {
  it("once under approval none: the handler's reads make the checks, the preflight does not walk first", async () => {
    const opens = await directoryOpensOf("none");
    // The root and each directory once (the commit reuses the reads' directories).
    expect(opens).toBeGreaterThanOrEqual(DIRECTORIES);
    expect(opens).toBeLessThanOrEqual(DIRECTORIES + 2);
  });

  it("control: when approval is asked, the preflight walks before it (refusals come before the question)", async () => {
    expect(await directoryOpensOf("destructive")).toBeGreaterThanOrEqual(2 * DIRECTORIES);
  });
});
