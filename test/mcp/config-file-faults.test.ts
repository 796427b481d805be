// Fault injection on the MCP config and state files: a `.mcp.json`, trust file or credential file
// that is a FIFO, a symlink to /dev/zero or to a huge file, a directory; and saves that hit a full
// disk. A read must end (an `invalid_*` ConfigurationError), never hang or pull gigabytes into
// memory; a failed save must leave the old file whole and nothing beside it.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "agent-tool-catalog";
import {
  InMemoryMcpTrustStore,
  JsonFileMcpCredentialStore,
  JsonFileMcpTrustStore,
  loadProjectMcpConfig,
} from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const isRoot = process.getuid?.() === 0;
let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), "mcp-file-faults-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

/** Settles `work` or reports `"hung"` after `ms`, so a read that blocks forever fails the test instead of stalling it. */
async function within<T>(ms: number, work: Promise<T>): Promise<T | "hung"> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), ms);
  });
  try {
    return await Promise.race([work, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error `work` rejects with, `"hung"`, or `"resolved"`. */
async function failure(work: Promise<unknown>): Promise<unknown> {
  return within(
    3000,
    work.then(
      () => "resolved",
      (error: unknown) => error,
    ),
  );
}

const validMcpJson = JSON.stringify({ mcpServers: { hosted: { url: "https://mcp.example.com/mcp" } } });

describe("a workspace's .mcp.json that is not a small regular file", () => {
  const load = () => loadProjectMcpConfig(workspace, { trustStore: new InMemoryMcpTrustStore() });

  it("is refused when it is a FIFO nobody writes to, instead of waiting forever", async () => {
    execFileSync("mkfifo", [join(workspace, ".mcp.json")]);
    const error = await failure(load());
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: "invalid_mcp_config", message: expect.stringContaining("not a regular file") });
  });

  it("is refused when a cloned repository made it a symlink to /dev/zero, without reading it", async () => {
    await symlink("/dev/zero", join(workspace, ".mcp.json"));
    const before = process.memoryUsage().rss;
    const error = await failure(load());
    expect(error).toMatchObject({ code: "invalid_mcp_config", message: expect.stringContaining("not a regular file") });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("is refused when it links to a 1 GiB file, and read when it links to a small one (control)", async () => {
    const huge = join(workspace, "huge.json");
    await writeFile(huge, "");
    await truncate(huge, 1024 * 1024 * 1024); // sparse: no disk used
    await symlink(huge, join(workspace, ".mcp.json"));
    const before = process.memoryUsage().rss;
    const error = await failure(load());
    expect(error).toMatchObject({ code: "invalid_mcp_config", message: expect.stringContaining("larger than 1048576 bytes") });
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);

    await writeFile(join(workspace, "small.json"), validMcpJson);
    await rm(join(workspace, ".mcp.json"));
    await symlink(join(workspace, "small.json"), join(workspace, ".mcp.json"));
    expect(await within(3000, load())).toMatchObject({ found: true, trusted: false, serverNames: ["hosted"] });
  });

  it("is refused as a directory, with the same code", async () => {
    await mkdir(join(workspace, ".mcp.json"));
    expect(await failure(load())).toMatchObject({ code: "invalid_mcp_config" });
  });
});

describe("state files (trust, credentials) that are not small regular files", () => {
  it("a trust file that is a FIFO is invalid_trust_store, not a hang; a regular one answers (control)", async () => {
    const fifo = join(workspace, "trust.json");
    execFileSync("mkfifo", [fifo]);
    expect(await failure(new JsonFileMcpTrustStore(fifo).isTrusted("/w/.mcp.json", "d"))).toMatchObject({
      code: "invalid_trust_store",
    });
    const regular = join(workspace, "trust-regular.json");
    await new JsonFileMcpTrustStore(regular).trust("/w/.mcp.json", "d");
    expect(await within(3000, new JsonFileMcpTrustStore(regular).isTrusted("/w/.mcp.json", "d"))).toBe(true);
  });

  it("a credential file linked to /dev/zero is invalid_mcp_config, not 2 GiB read", async () => {
    const file = join(workspace, "credentials.json");
    await symlink("/dev/zero", file);
    expect(await failure(new JsonFileMcpCredentialStore(file).get("https://mcp.example.com"))).toMatchObject({
      code: "invalid_mcp_config",
    });
  });
});

describe.skipIf(!isRoot)("saves on a full disk (needs root for a 1 MiB tmpfs)", () => {
  let mountPoint: string;
  beforeEach(async () => {
    mountPoint = await mkdtemp(join(tmpdir(), "mcp-enospc-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]);
  });
  afterEach(async () => {
    execFileSync("umount", [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  /** Fills the tmpfs to the last byte. */
  async function fill(): Promise<void> {
    const filler = join(mountPoint, "filler.bin");
    await writeFile(filler, Buffer.alloc(2 * 1024 * 1024)).catch(() => undefined);
  }

  it("a trust decision that cannot be saved rejects, keeps the old file whole and leaves nothing beside it", async () => {
    const file = join(mountPoint, "trust.json");
    const store = new JsonFileMcpTrustStore(file);
    await store.trust("/w/a/.mcp.json", "a");
    const saved = await readFile(file, "utf8");
    await fill();
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(store.trust(`/w/b${attempt}/.mcp.json`, "b".repeat(4096))).rejects.toMatchObject({ code: "ENOSPC" });
    }
    expect(await readFile(file, "utf8")).toBe(saved);
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/a/.mcp.json", "a")).toBe(true);
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/b0/.mcp.json", "b".repeat(4096))).toBe(false);
    expect((await readdir(mountPoint)).sort()).toEqual(["filler.bin", "trust.json"]);

    // Control: with space again, the same decision is saved.
    await rm(join(mountPoint, "filler.bin"));
    await store.trust("/w/b0/.mcp.json", "b".repeat(4096));
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/b0/.mcp.json", "b".repeat(4096))).toBe(true);
    expect(await readdir(mountPoint)).toEqual(["trust.json"]);
  });

  it("credentials that cannot be saved reject, keep the old file whole and leave nothing beside it", async () => {
    const file = join(mountPoint, "credentials.json");
    const store = new JsonFileMcpCredentialStore(file);
    await store.set("https://a.example", { tokens: { access_token: "a", token_type: "Bearer" } });
    const saved = await readFile(file, "utf8");
    await fill();
    for (let attempt = 0; attempt < 5; attempt++) {
      await expect(
        store.set(`https://b${attempt}.example`, { tokens: { access_token: "b".repeat(4096), token_type: "Bearer" } }),
      ).rejects.toMatchObject({ code: "ENOSPC" });
    }
    expect(await readFile(file, "utf8")).toBe(saved);
    expect((await readdir(mountPoint)).sort()).toEqual(["credentials.json", "filler.bin"]);

    await rm(join(mountPoint, "filler.bin"));
    await store.set("https://b0.example", { tokens: { access_token: "b", token_type: "Bearer" } });
    expect(await new JsonFileMcpCredentialStore(file).get("https://b0.example")).toMatchObject({ tokens: { access_token: "b" } });
    expect(await readdir(mountPoint)).toEqual(["credentials.json"]);
  });

  it("a trust decision on a read-only mount rejects with EROFS and changes nothing; control: the same decision saves once writable", async () => {
    const file = join(mountPoint, "trust.json");
    const store = new JsonFileMcpTrustStore(file);
    await store.trust("/w/a/.mcp.json", "a");
    const saved = await readFile(file, "utf8");
    execFileSync("mount", ["-o", "remount,ro", mountPoint]);
    try {
      await expect(store.trust("/w/b/.mcp.json", "b")).rejects.toMatchObject({ code: "EROFS" });
      expect(await store.isTrusted("/w/a/.mcp.json", "a")).toBe(true);
      expect(await readFile(file, "utf8")).toBe(saved);
    } finally {
      execFileSync("mount", ["-o", "remount,rw", mountPoint]);
    }
    await store.trust("/w/b/.mcp.json", "b");
    expect(await new JsonFileMcpTrustStore(file).isTrusted("/w/b/.mcp.json", "b")).toBe(true);
    expect(await readdir(mountPoint)).toEqual(["trust.json"]);
  });
});
