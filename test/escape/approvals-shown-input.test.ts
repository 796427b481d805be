/**
 * Red team round 26: what a person approving a call is shown against what then runs. The model
 * shapes its arguments so that the two could differ: fields the schema fills in (defaults),
 * converts (coercion, trimming) or drops (a field the handler might read), terminal escapes, a
 * carriage return, bidi overrides and a zero-width space inside a command, a command so long that
 * a prompt would cut it with another tail, a JSON string with the same key twice, and an own
 * `__proto__` key (read through a prototype only after a careless copy). The approval request's
 * `input` must be, as JSON, exactly what the handler (or the MCP server) receives.
 * Controls: the same calls, denied, run nothing; approved, they run with those arguments.
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type ApprovalRequest, createRegistry, defineTool, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

// What a terminal or a page would render otherwise than the bytes: an ANSI "erase line" and
// carriage return hiding what came before, a right-to-left override, a zero-width space.
const HIDDEN = "ls \u001b[2K\r\u202erm -rf ~\u202c \u200b#";
// A long command whose tail (past what a prompt would show) differs from its head.
const LONG = `echo ${"a".repeat(40_000)}; rm -rf ~`;

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

/** A run whose every call asks; `decide` answers each request as it is shown. */
function asking(tools: Parameters<typeof createRegistry>[0], decide: "approve" | "deny") {
  registry = createRegistry(tools);
  const shown: string[] = [];
  const approvals = registry.approvals;
  approvals.events.on("approval.requested", (request: ApprovalRequest) => {
    shown.push(JSON.stringify(request.input));
    void (decide === "approve" ? approvals.approve(request.id) : approvals.deny(request.id, "no"));
  });
  return { run: registry.createRun({ permissions: { approval: "all" } }), shown };
}

function commandTool(received: { json: string; cmd: unknown }[]) {
  return defineTool({
    name: "run_command",
    description: "Runs a command.",
    mutating: true,
    inputSchema: z.object({
      command: z.string(),
      cwd: z.string().default("."),
      timeout: z.coerce.number(),
      confirm: z.string().trim(),
    }),
    handler: (input) => {
      // A handler reading a field its schema does not have (what the model also sent).
      received.push({ json: JSON.stringify(input), cmd: (input as Record<string, unknown>).cmd });
      return "ran";
    },
  });
}

const MODEL_INPUTS: unknown[] = [
  { command: HIDDEN, timeout: "5", confirm: "  yes  ", cmd: "rm -rf /" },
  { command: LONG, timeout: 1, confirm: "yes" },
  '{"command":"ls","command":"rm -rf ~","timeout":1,"confirm":"yes"}',
  JSON.parse('{"command":"ls","timeout":1,"confirm":"yes","__proto__":{"command":"rm -rf ~"}}'),
];

function mcpServer(received: string[]) {
  const server = new Server({ name: "shell", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [
      {
        name: "exec",
        description: "Runs a command.",
        inputSchema: {
          type: "object",
          properties: { command: { type: "string" }, dry_run: { type: "boolean", default: true } },
          required: ["command"],
        },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, (request) => {
    const args = request.params.arguments ?? {};
    // Read as a server's handler would, destructuring: through a prototype, were one set.
    const { dry_run: dryRun } = args as { dry_run?: unknown };
    received.push(`${JSON.stringify(args)} dry_run=${String(dryRun)}`);
    return { content: [{ type: "text", text: "ran" }] };
  });
  return server;
}

async function mcpRun(decide: "approve" | "deny") {
  const received: string[] = [];
  const { run, shown } = asking({}, decide);
  await connectMcpServer(registry as Registry, {
    name: "shell",
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void mcpServer(received).connect(server);
      return client;
    },
  });
  run.activate(["mcp_shell_exec"]);
  return { run, shown, received };
}

const MCP_INPUTS: unknown[] = [
  { command: HIDDEN },
  { command: LONG, dry_run: false },
  '{"command":"ls","command":"rm -rf ~"}',
  JSON.parse('{"command":"ls","__proto__":{"command":"rm -rf ~","dry_run":false}}'),
];

describe("an approval shows exactly the input that runs", () => {
  escapeAttempt(
    "approvals",
    "a host tool's input reshaped by its schema, hidden by escapes, cut by length, a key repeated or __proto__",
    async () => {
      const received: { json: string; cmd: unknown }[] = [];
      const { run, shown } = asking({ tools: [commandTool(received)] }, "approve");
      for (const input of MODEL_INPUTS) expect((await run.call("run_command", input)).ok).toBe(true);
      expect(received.map((each) => each.json)).toEqual(shown);
      expect(received.map((each) => each.cmd)).toEqual([undefined, undefined, undefined, undefined]);
      const commands = shown.map((json) => (JSON.parse(json) as { command: string }).command);
      // What was shown holds every byte the handler got: the escapes, the tail, the last key.
      expect(commands).toEqual([HIDDEN, LONG, "rm -rf ~", "ls"]);
      expect(JSON.parse(shown[0] as string)).toEqual({ command: HIDDEN, cwd: ".", timeout: 5, confirm: "yes" });
    },
  );

  escapeAttempt("approvals", "an MCP tool's arguments as its server receives them, the same shapes", async () => {
    const { run, shown, received } = await mcpRun("approve");
    for (const input of MCP_INPUTS) expect((await run.call("mcp_shell_exec", input)).ok).toBe(true);
    // The server gets what was shown; the own `__proto__` key the person saw is dropped by the
    // server's SDK on the way in, never made the arguments' prototype (dry_run stays unset).
    expect(received.slice(0, 3)).toEqual(shown.slice(0, 3).map((json) => `${json} dry_run=${String(JSON.parse(json).dry_run)}`));
    expect(shown[3]).toBe('{"command":"ls","__proto__":{"command":"rm -rf ~","dry_run":false}}');
    expect(received[3]).toBe('{"command":"ls"} dry_run=undefined');
    expect(shown.map((json) => (JSON.parse(json) as { command: string }).command)).toEqual([HIDDEN, LONG, "rm -rf ~", "ls"]);
  });

  it("control: denied, neither the handler nor the server runs", async () => {
    const received: { json: string; cmd: unknown }[] = [];
    const host = asking({ tools: [commandTool(received)] }, "deny");
    for (const input of MODEL_INPUTS) {
      expect(await host.run.call("run_command", input)).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    }
    expect(host.shown).toHaveLength(MODEL_INPUTS.length);
    expect(received).toEqual([]);
    await registry?.close();
    const mcp = await mcpRun("deny");
    for (const input of MCP_INPUTS) {
      expect(await mcp.run.call("mcp_shell_exec", input)).toMatchObject({ ok: false, error: { code: "approval_denied" } });
    }
    expect(mcp.shown).toHaveLength(MCP_INPUTS.length);
    expect(mcp.received).toEqual([]);
  });
});
