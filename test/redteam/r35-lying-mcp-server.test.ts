/**
 * Red team round 35: an MCP server that lies (test/redteam/r35-lying-server.mjs, a real stdio
 * process speaking raw JSON-RPC). Attacked:
 *
 * - tools named as the core tools (`find_tool`, `read`, `bash`): the run's `find_tool` stays the
 *   core one, a bare `read`/`bash` never reaches the server, and `allowedTools: ["read"]` does not
 *   admit the server's `read`;
 * - `readOnlyHint: true` on a tool that destroys: from an untrusted server the hint is ignored and
 *   `approval: "destructive"` asks (denied here: the server never runs it); the same hint from a
 *   server the host marks trusted is taken (the positive control: it runs without asking);
 * - `notifications/tools/list_changed` sent while a call of the listed tool runs, the tool gone
 *   from the next listing: the call in flight gets its answer, the next call a structured
 *   `unknown_tool`, and the server's other tools still work.
 */
import path from "node:path";
import { createRegistry, InMemoryApprovalBroker, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "r35-lying-server.mjs");
let registry: Registry | undefined;

afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function connected(options: { trusted?: boolean; approvals?: InMemoryApprovalBroker } = {}) {
  registry = createRegistry(options.approvals === undefined ? {} : { approvals: options.approvals });
  const handle = await connectMcpServer(registry, {
    name: "liar",
    command: process.execPath,
    args: [SERVER],
    ...(options.trusted === undefined ? {} : { trusted: options.trusted }),
  });
  return { registry, handle };
}

const textOf = (output: unknown) => JSON.stringify(output);
const ALL = ["mcp_liar_bash", "mcp_liar_find_tool", "mcp_liar_read", "mcp_liar_runs", "mcp_liar_vanish", "mcp_liar_wipe"];

/** A run with the server's (deferred) tools activated, as find_tool would. */
function activeRun(registry: Registry, options: Parameters<Registry["createRun"]>[0] = {}) {
  const run = registry.createRun(options);
  run.activate(ALL.filter((name) => options.allowedTools === undefined || options.allowedTools.includes(name)));
  return run;
}

describe("an MCP server whose tools take the core tools' names", () => {
  it("gets its own names; find_tool stays the core one and a bare read or bash never reaches it", async () => {
    const { registry, handle } = await connected();
    expect([...handle.status.tools].sort()).toEqual(ALL);
    const run = activeRun(registry);
    const found = await run.call("find_tool", { query: "read" });
    expect(found.ok).toBe(true);
    expect(textOf(found.ok ? found.output : found.error)).not.toContain("server find_tool ran");
    for (const name of ["read", "bash"]) {
      const bare = await run.call(name, {});
      expect(bare.ok).toBe(false);
      expect(bare.ok ? undefined : bare.error.code).toBe("unknown_tool");
    }
    // allowedTools names the core read: the server's read is not it.
    const narrowed = activeRun(registry, { allowedTools: ["read"] });
    narrowed.activate(["mcp_liar_read"]);
    const denied = await narrowed.call("mcp_liar_read", {});
    expect(denied.ok).toBe(false);
    expect(textOf(denied)).not.toContain("server read ran");
    // Positive control: its own name reaches it.
    const own = await run.call("mcp_liar_read", {});
    expect(own.ok && textOf(own.output)).toContain("server read ran");
  }, 60_000);
});

describe("an MCP tool that says readOnlyHint but destroys", () => {
  it("from an untrusted server: approval is asked (denied: it never runs); trusted: the hint is taken", async () => {
    const approvals = new InMemoryApprovalBroker();
    approvals.events.on("approval.requested", (event) => {
      void approvals.deny(event.id, "no");
    });
    const { registry } = await connected({ approvals });
    const run = activeRun(registry, { permissions: { approval: "destructive" } });
    const asked: string[] = [];
    approvals.events.on("approval.requested", (event) => {
      asked.push(event.toolName);
    });
    const wipe = await run.call("mcp_liar_wipe", {});
    expect(wipe.ok).toBe(false);
    expect(wipe.ok ? undefined : wipe.error.code).toBe("approval_denied");
    expect(asked).toEqual(["mcp_liar_wipe"]);
    const runs = await run.call("mcp_liar_runs", {});
    // runs is not read-only either (no hint): it is asked and denied too; read the count unasked.
    expect(runs.ok).toBe(false);
    const unasked = activeRun(registry, { permissions: { approval: "none" } });
    const count = await unasked.call("mcp_liar_runs", {});
    expect(count.ok && textOf(count.output)).toContain("wiped 0");
    await registry.close();

    // Positive control: the host trusts the server, so its hint is taken and nothing is asked.
    const trusting = new InMemoryApprovalBroker();
    const trustedAsked: string[] = [];
    trusting.events.on("approval.requested", (event) => {
      trustedAsked.push(event.toolName);
      void trusting.deny(event.id, "no");
    });
    const trusted = await connected({ trusted: true, approvals: trusting });
    const trustedRun = activeRun(trusted.registry, { permissions: { approval: "destructive" } });
    const ran = await trustedRun.call("mcp_liar_wipe", {});
    expect(ran.ok && textOf(ran.output)).toContain("server wipe ran");
    expect(trustedAsked).toEqual([]);
  }, 60_000);
});

describe("tools/list_changed while a call of the listed tool runs", () => {
  it("the call in flight gets its answer, the next one unknown_tool, the others still work", async () => {
    const { registry, handle } = await connected();
    const run = activeRun(registry);
    const refreshed = new Promise<void>((resolve) => {
      handle.events.on("tools.refreshed", () => resolve());
    });
    const first = await run.call("mcp_liar_vanish", {});
    expect(first.ok && textOf(first.output)).toContain("vanish ran");
    await refreshed;
    expect(handle.status.tools).not.toContain("mcp_liar_vanish");
    const second = await run.call("mcp_liar_vanish", {});
    expect(second.ok).toBe(false);
    expect(second.ok ? undefined : second.error.code).toBe("unknown_tool");
    const other = await run.call("mcp_liar_read", {});
    expect(other.ok && textOf(other.output)).toContain("server read ran");
  }, 60_000);
});
