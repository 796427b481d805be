/**
 * The MCP subpath's numeric options against hostile values. A server config's timeouts were
 * checked as positive, but a value past 2^31 - 1 ms made Node fire the timer after 1 ms: every
 * call failed with `mcp_timeout` (every input check with `input_schema_too_slow`). The connect
 * tool's options were checked only when the model's first `connect_mcp` built a config
 * (`maxServersPerRun: NaN`: no limit at all); the prompt and resource tools' limits and
 * `listChangedDebounceMs` not at all. Each is now refused where it is given, with the surface's
 * code (`invalid_mcp_config` for server configs and the connect options, `invalid_option` for
 * the others) naming the option. Positive controls: the documented values, the longest timer
 * included, connect and list.
 */
import { createRegistry, untrustedJsonSchema } from "agent-tool-catalog";
import {
  connectMcpServer,
  createConnectMcpTool,
  createMcpPromptTools,
  createMcpResourceTools,
  McpServerSet,
} from "agent-tool-catalog/mcp";
import { describe, expect, it } from "vitest";
import { inMemoryFixture } from "../mcp/support/in-memory-fixture.js";
import { type DocumentedRule, expectRuleHolds } from "../support/hostile-options.js";

const MAX_TIMER = 2 ** 31 - 1;
const CONFIG_TIMER: DocumentedRule = { min: 0, aboveMin: true, max: MAX_TIMER };

/** Connects the in-memory fixture with `extra` in its config or options, then closes everything. */
async function connect(config: object, options: object = {}): Promise<void> {
  const registry = createRegistry();
  try {
    await connectMcpServer(registry, { ...inMemoryFixture("fixture"), ...config }, options);
  } finally {
    await registry.close();
  }
}

describe("MCP options: refused where given unless the documented rule accepts them", () => {
  for (const field of ["timeoutMs", "connectTimeoutMs", "schemaTimeoutMs"]) {
    it(`server config ${field}: above 0 and at most 2^31 - 1 ms (invalid_mcp_config)`, async () => {
      await expectRuleHolds(field, (value) => connect({ [field]: value }), CONFIG_TIMER, undefined, "invalid_mcp_config");
    });
  }

  it("server config maxOutputBytes (whole, at least 1) and maxBinaryBytes (whole, at least 0): a fraction is refused, never floored", async () => {
    // Before: 0.5 was floored to 0, which means something else (every output cut to nothing,
    // every binary block described in text).
    await expectRuleHolds(
      "maxOutputBytes",
      (value) => connect({ maxOutputBytes: value }),
      { min: 1, integer: true },
      undefined,
      "invalid_mcp_config",
    );
    await expectRuleHolds(
      "maxBinaryBytes",
      (value) => connect({ maxBinaryBytes: value }),
      { min: 0, integer: true },
      undefined,
      "invalid_mcp_config",
    );
  });

  it("connectMcpServer listChangedDebounceMs: 0 to 2^31 - 1 ms (invalid_mcp_config)", async () => {
    await expectRuleHolds(
      "listChangedDebounceMs",
      (listChangedDebounceMs) => connect({}, { listChangedDebounceMs }),
      { min: 0, max: MAX_TIMER },
      undefined,
      "invalid_mcp_config",
    );
  });

  it("createConnectMcpTool: maxServersPerRun, timeouts and maxOutputBytes when the tool is made (invalid_mcp_config)", async () => {
    const give = (options: object) =>
      createConnectMcpTool(createRegistry(), { allowedUrls: ["https://mcp.example"], ...options });
    const code = "invalid_mcp_config";
    await expectRuleHolds(
      "maxServersPerRun",
      (value) => give({ maxServersPerRun: value }),
      { min: 1, integer: true, infinite: true },
      undefined,
      code,
    );
    await expectRuleHolds("timeoutMs", (value) => give({ timeoutMs: value }), CONFIG_TIMER, undefined, code);
    await expectRuleHolds("connectTimeoutMs", (value) => give({ connectTimeoutMs: value }), CONFIG_TIMER, undefined, code);
    await expectRuleHolds(
      "maxOutputBytes",
      (value) => give({ maxOutputBytes: value }),
      { min: 1, integer: true },
      undefined,
      code,
    );
  });

  it("createMcpPromptTools and createMcpResourceTools: byte and entry limits (invalid_option)", async () => {
    const bytes: DocumentedRule = { min: 1, integer: true };
    const entries: DocumentedRule = { min: 1, integer: true, infinite: true };
    await expectRuleHolds(
      "maxOutputBytes",
      (maxOutputBytes) => createMcpPromptTools(new McpServerSet(), { maxOutputBytes }),
      bytes,
    );
    await expectRuleHolds(
      "maxPromptsPerServer",
      (maxPromptsPerServer) => createMcpPromptTools(new McpServerSet(), { maxPromptsPerServer }),
      entries,
    );
    await expectRuleHolds(
      "maxOutputBytes",
      (maxOutputBytes) => createMcpResourceTools(new McpServerSet(), { maxOutputBytes }),
      bytes,
    );
    await expectRuleHolds(
      "maxResourcesPerServer",
      (maxResourcesPerServer) => createMcpResourceTools(new McpServerSet(), { maxResourcesPerServer }),
      entries,
    );
  });

  it("untrustedJsonSchema timeoutMs: above 0 and at most 2^31 - 1 ms (invalid_tool_config)", async () => {
    await expectRuleHolds(
      "timeoutMs",
      (timeoutMs) => untrustedJsonSchema({ type: "object" }, { timeoutMs }),
      CONFIG_TIMER,
      undefined,
      "invalid_tool_config",
    );
  });
});

describe("positive controls", () => {
  it("a server with the longest timers connects and answers a call", async () => {
    const registry = createRegistry();
    try {
      const longest = { timeoutMs: MAX_TIMER, connectTimeoutMs: MAX_TIMER, schemaTimeoutMs: MAX_TIMER };
      await connectMcpServer(registry, { ...inMemoryFixture("longest"), ...longest }, { listChangedDebounceMs: 0 });
      const names = registry.list().map((tool) => tool.name);
      const echo = names.find((name) => name.startsWith("mcp_longest_") && name.includes("echo"));
      expect(echo, names.join(", ")).toBeDefined();
      const run = registry.createRun({ profile: "full", allowedTools: [echo as string] });
      await run.activate([echo as string]);
      const result = await run.call(echo as string, { text: "hi" });
      expect(result.ok, JSON.stringify(result)).toBe(true);
    } finally {
      await registry.close();
    }
  });
});
