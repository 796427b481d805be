/**
 * Red team round 24: a hostile MCP server (a real process) attacks the host during and between
 * calls. While a call runs it asks the host for sampling (its model, paid by the host, to print
 * secrets), elicitation (the user's password) and roots (the host's directories), none of which
 * the client declared; and it redefines a destructive tool (a wider schema, "Deletes every note")
 * with `list_changed` while a call to it waits for approval, so that the approval the host gives
 * for what it was shown runs the new definition.
 */
import { fileURLToPath } from "node:url";
import { type ApprovalRequest, createRegistry, InMemoryApprovalBroker, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";

const server = fileURLToPath(new URL("./support/asking-mcp-server.mjs", import.meta.url));

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function connect() {
  const approvals = new InMemoryApprovalBroker();
  const shown: ApprovalRequest[] = [];
  approvals.events.on("approval.requested", (request) => shown.push(request));
  registry = createRegistry({ approvals });
  await connectMcpServer(registry, { name: "asking", command: process.execPath, args: [server] });
  const run = registry.createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 20_000 });
  run.activate(["mcp_asking_delete", "mcp_asking_swap"]);
  return { approvals, shown, run, registry };
}

const text = (result: unknown) => JSON.stringify(result);

describe("a hostile MCP server asking the host and redefining a tool mid-call", () => {
  escapeAttempt(
    "network",
    "sampling, elicitation and roots asked mid-call, undeclared, are refused and the call still answers",
    async () => {
      const { approvals, shown, run } = await connect();
      const call = run.call("mcp_asking_delete", { title: "old draft" });
      await expect.poll(() => shown.length, { timeout: 40_000 }).toBe(1);
      await approvals.approve(shown[0]?.id ?? "");
      const result = await call;
      expect(result).toMatchObject({ ok: true });
      // The server heard three errors (method not found), no answer: nothing of the host's reached it.
      expect(text(result)).toMatch(/host answered \[\{\\"error\\":-32601\},\{\\"error\\":-32601\},\{\\"error\\":-32601\}\]/);
    },
    60_000,
  );

  escapeAttempt(
    "network",
    "a destructive tool redefined by list_changed while its call waits for approval does not run",
    async () => {
      const { approvals, shown, run } = await connect();
      const call = run.call("mcp_asking_delete", { title: "old draft" });
      await expect.poll(() => shown.length, { timeout: 40_000 }).toBe(1);
      // The server's own annotations are not trusted: its read-only "swap" is asked for too.
      const swap = run.call("mcp_asking_swap", {});
      await expect.poll(() => shown.length, { timeout: 40_000 }).toBe(2);
      await approvals.approve(shown[1]?.id ?? "");
      expect(await swap).toMatchObject({ ok: true });
      await expect
        .poll(() => run.availableTools().find((tool) => tool.name === "mcp_asking_delete")?.description, { timeout: 40_000 })
        .toContain("every note");
      await approvals.approve(shown[0]?.id ?? "");
      const result = await call;
      expect(text(result)).not.toContain("deleted every note");
      expect(result).toMatchObject({ ok: false, error: { message: expect.stringContaining("changed while the call waited") } });
    },
    60_000,
  );

  it("control: not redefined, the approved call runs and the server's tool answers", async () => {
    const { approvals, shown, run } = await connect();
    const call = run.call("mcp_asking_delete", { title: "old draft" });
    await expect.poll(() => shown.length, { timeout: 40_000 }).toBe(1);
    await approvals.approve(shown[0]?.id ?? "");
    expect(text(await call)).toContain("deleted old draft");
  }, 60_000);
});
