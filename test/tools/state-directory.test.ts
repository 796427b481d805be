import { chmod, chown, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { saveStateDirectoryEnv } from "../support/state-directory-env.js";

// Lock files and intent logs live in a per-user state directory, by default in the shared
// temporary directory. Another local user who makes it first (or makes it a link, or leaves it
// writable) could plant locks or intent logs that this process would obey.
describe("the private state directory", () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-state-"));
  });
  afterEach(saveStateDirectoryEnv());
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  async function writeWith(state: string, lock: string) {
    process.env.AGENT_TOOL_CATALOG_STATE_DIR = state;
    process.env.AGENT_TOOL_CATALOG_LOCK_DIR = lock;
    const workspace = await mkdtemp(path.join(base, "ws-"));
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const result = await run.call("write", { path: "a.txt", content: "hello\n" });
    const written = await readFile(path.join(workspace, "a.txt"), "utf8").catch(() => undefined);
    return { result, written };
  }

  it("works in a directory only this user can write (control)", async () => {
    const { result, written } = await writeWith(path.join(base, "ok-state"), path.join(base, "ok-lock"));
    expect(result.ok).toBe(true);
    expect(written).toBe("hello\n");
  });

  it("refuses a state or lock directory that others can write, and writes nothing", async () => {
    for (const which of ["state", "lock"] as const) {
      const open = path.join(base, `open-${which}`);
      await mkdir(open, { mode: 0o777 });
      await chmod(open, 0o777);
      const { result, written } = await writeWith(
        which === "state" ? open : path.join(base, `fine-state-${which}`),
        which === "lock" ? open : path.join(base, `fine-lock-${which}`),
      );
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.code).toBe("state_directory_unsafe");
        expect(result.error.message).not.toContain(base);
      }
      expect(written).toBeUndefined();
    }
  });

  it("refuses a state directory that is a link, even to a private directory", async () => {
    const target = path.join(base, "private-target");
    await mkdir(target, { mode: 0o700 });
    const link = path.join(base, "linked-state");
    await symlink(target, link);
    const { result, written } = await writeWith(link, path.join(base, "lock-for-link"));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("state_directory_unsafe");
    expect(written).toBeUndefined();
  });

  it.skipIf(process.getuid?.() !== 0)("refuses a state directory another user made first", async () => {
    const theirs = path.join(base, "theirs");
    await mkdir(theirs, { mode: 0o700 });
    await chown(theirs, 65534, 65534);
    const { result, written } = await writeWith(theirs, path.join(base, "lock-for-theirs"));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe("state_directory_unsafe");
    expect(written).toBeUndefined();
  });
});
