// Fault round (stop 36): the host's data stores (profiles, skills, prompt extensions) on a full
// disk and on a read-only mount. A save that failed reached the model as tool_failed with Node's
// text ("EROFS: read-only file system, open '/proc/self/fd/19/.p1.toml.<uuid>.tmp'"): nothing it
// could act on. Now: no_space / read_only_file_system without host paths; the old file stays
// whole, nothing is left beside it, and the same call saves once the fault is gone.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { defineTool, type Run, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  DirectoryPromptExtensionStore,
  profileToolGroup,
  promptExtensionToolGroup,
  skillManageToolGroup,
} from "../../src/host/index.js";
import { hostRun } from "./support/host-test-kit.js";

const isRoot = process.getuid?.() === 0;

function storesRun(root: string): Run {
  const { run } = hostRun([
    skillManageToolGroup({ skillsDir: path.join(root, "skills") }),
    profileToolGroup({ profiles: [], profilesDir: path.join(root, "profiles") }),
    promptExtensionToolGroup({ store: new DirectoryPromptExtensionStore(path.join(root, "extensions")) }),
  ]);
  run.activate(["skill_manage", "create_profile", "update_profile"]);
  return run;
}

/** One save of each store: a new profile, a changed profile, a changed skill, a new prompt extension. */
function saves(run: Run, size: number): Record<string, Promise<ToolCallResult>> {
  const long = "Check every step twice. ".repeat(Math.ceil(size / 24)).slice(0, size);
  return {
    create_profile: run.call("create_profile", { name: "p2", description: "Second profile" }),
    update_profile: run.call("update_profile", { name: "p1", system_prompt: long }),
    "skill_manage update": run.call("skill_manage", { action: "update", name: "s1", body: long }),
    create_prompt_extension: run.call("create_prompt_extension", {
      kind: "behavior",
      name: "e2",
      description: "d",
      content: long.slice(0, 15_000),
    }),
  };
}

async function contents(root: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      found[path.relative(root, path.join(entry.parentPath, entry.name))] = await readFile(
        path.join(entry.parentPath, entry.name),
        "utf8",
      );
  }
  return found;
}

describe.skipIf(!isRoot)("host store saves on a full disk and a read-only mount (needs root to mount a tmpfs)", () => {
  let mountPoint: string;
  beforeEach(() => {
    mountPoint = mkdtempSync(path.join(tmpdir(), "atc-store-faults-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", mountPoint]);
  });
  afterEach(async () => {
    execFileSync("umount", [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  async function seed(run: Run): Promise<Record<string, string>> {
    for (const result of [
      await run.call("create_profile", { name: "p1", description: "First profile" }),
      await run.call("skill_manage", { action: "create", name: "s1", description: "First skill", body: "Do it." }),
      await run.call("create_prompt_extension", { kind: "behavior", name: "e1", description: "d", content: "c" }),
    ]) {
      expect(result.ok, JSON.stringify(result)).toBe(true);
    }
    return contents(mountPoint);
  }

  async function expectRefused(run: Run, code: string, before: Record<string, string>): Promise<void> {
    for (const [label, call] of Object.entries(saves(run, 60_000))) {
      const result = await call;
      expect(result.ok, label).toBe(false);
      if (result.ok) continue;
      expect(result.error.code, `${label}: ${result.error.message}`).toBe(code);
      expect(result.error.message, label).not.toContain("/");
      expect(result.error.hint, label).toBeDefined();
    }
    // Every file as it was, nothing beside them (no temporary file, no new entry).
    expect(await contents(mountPoint)).toEqual(before);
  }

  it("full disk: every save is no_space, the files stay whole; control: the same saves succeed once space is freed", async () => {
    const run = storesRun(mountPoint);
    const seeded = await seed(run);
    const filler = path.join(mountPoint, "filler.bin");
    await writeFile(filler, Buffer.alloc(512 * 1024)).catch(() => undefined);
    const before = await contents(mountPoint);
    await expectRefused(run, "no_space", before);
    await rm(filler);
    for (const [label, call] of Object.entries(saves(run, 60_000))) expect((await call).ok, label).toBe(true);
    expect(await contents(mountPoint)).not.toEqual(seeded);
  });

  it("read-only mount: every save is read_only_file_system, nothing changes; control: writable again, the same saves succeed", async () => {
    const run = storesRun(mountPoint);
    const before = await seed(run);
    execFileSync("mount", ["-o", "remount,ro", mountPoint]);
    try {
      await expectRefused(run, "read_only_file_system", before);
    } finally {
      execFileSync("mount", ["-o", "remount,rw", mountPoint]);
    }
    for (const [label, call] of Object.entries(saves(run, 1_000))) expect((await call).ok, label).toBe(true);
  });
});

describe("a system error that is not about the machine keeps tool_failed", () => {
  it("a handler whose read of a missing file fails (ENOENT) is tool_failed with its own text (control)", async () => {
    const missing = path.join(tmpdir(), "atc-store-faults-missing", "nothing.txt");
    const tool = defineTool({
      name: "read_missing",
      description: "Reads a file that is not there.",
      inputSchema: z.object({}),
      handler: () => readFile(missing, "utf8"),
    });
    const { run } = hostRun([{ name: "probe", enabled: true, tools: () => [tool] }]);
    const result = await run.call("read_missing", {});
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe("tool_failed");
      expect(result.error.message).toContain("ENOENT");
    }
  });
});
