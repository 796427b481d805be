/**
 * Every tool of a full default catalog, called the ways a model gets wrong (no arguments, every
 * field of the wrong type, malformed JSON), answers with a result a model can act on: success, or
 * a code from `MODEL_ERROR_CODES` with a message, and `issues` for `invalid_input`. Never a throw.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { isModelErrorCode, type ToolCallResult } from "agent-tool-catalog";
import { createDefaultCatalog, type DefaultCatalog } from "agent-tool-catalog/catalog";
import { gitToolGroup } from "agent-tool-catalog/git";
import {
  InMemoryPackRegistry,
  InMemoryQuestionBroker,
  InMemoryTranscriptStore,
  InProcessCallbackManager,
  InProcessCronScheduler,
  InProcessSubagentManager,
  InProcessWorkflowService,
} from "agent-tool-catalog/host";
import { createConnectMcpTool } from "agent-tool-catalog/mcp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyPageFetcher, modelError, okRunner } from "./support.js";

let workspace: string;
let catalog: DefaultCatalog;
beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-spec-errors-"));
  const runner = okRunner;
  const fetcher = emptyPageFetcher;
  catalog = createDefaultCatalog({
    workspace,
    agentRunner: runner,
    webFetcher: fetcher,
    webSearcher: { search: async () => [] },
    subagentManager: new InProcessSubagentManager({ runner }),
    cronClient: new InProcessCronScheduler(),
    callbackManager: new InProcessCallbackManager({ onFire: () => undefined }),
    skillsDir: workspace,
    packRegistry: new InMemoryPackRegistry([]),
    workflowService: new InProcessWorkflowService({ runner }),
    recipesDir: workspace,
    profiles: { profilesDir: workspace },
    sourcegraph: { endpoint: "https://sourcegraph.invalid" },
    questionBroker: new InMemoryQuestionBroker(),
    transcriptStore: new InMemoryTranscriptStore(),
    git: gitToolGroup(),
    mcp: { connectTool: (registry) => createConnectMcpTool(registry, { allowedUrls: ["http://127.0.0.1/"] }) },
  });
});
afterAll(async () => {
  await catalog.registry.close();
  await rm(workspace, { recursive: true, force: true });
});

/** Every property of the tool's schema set to a value of another type. */
function wrongTypes(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(properties)) {
    out[name] = property.type === "string" ? 12345 : property.type === "object" ? "text" : { unexpected: true };
  }
  return out;
}

function expectActionable(result: ToolCallResult, label: string): void {
  if (result.ok) return;
  const { error } = result;
  expect(isModelErrorCode(error.code), `${label}: ${error.code} is not in MODEL_ERROR_CODES`).toBe(true);
  expect(error.message.trim().length, label).toBeGreaterThan(0);
  if (error.code === "invalid_input" && !error.message.includes("JSON"))
    expect(error.issues?.length ?? 0, label).toBeGreaterThan(0);
}

describe("every tool answers a model's malformed call with a model error", () => {
  it("no arguments, wrong-typed fields, malformed JSON", async () => {
    const run = catalog.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    const names = catalog.registry
      .list()
      .map((tool) => tool.name)
      .filter((name) => name !== "find_tool" && name !== "toolbox");
    run.activate(names);
    expect(names.length).toBeGreaterThan(50);
    let failures = 0;
    for (const name of names) {
      const schema = catalog.registry.get(name)?.inputSchema;
      for (const [label, args] of [
        ["wrong types", wrongTypes(schema)],
        ["malformed JSON", '{"unclosed": '],
        ["no arguments", {}],
      ] as const) {
        const result = await run.call(name, args, { signal: AbortSignal.timeout(2_000) });
        if (!result.ok) failures++;
        expectActionable(result, `${name} (${label})`);
      }
    }
    // Positive control: most of these calls are refused, so the check above really ran.
    expect(failures).toBeGreaterThan(names.length * 2);
  });
});

describe("an invalid_input a handler raises names its field like schema validation does", () => {
  it("skill, todo, monitor and connect_mcp name the field in issues", async () => {
    const run = catalog.createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace } });
    run.activate(["skill", "connect_mcp", "monitor", "todo"]);
    modelError(await run.call("skill", {}), "invalid_input", "name");
    modelError(await run.call("todo", { action: "add" }), "invalid_input", "items");
    modelError(await run.call("monitor", { action: "start" }), "invalid_input", "command");
    modelError(await run.call("monitor", { action: "poll" }), "invalid_input", "id");
    modelError(await run.call("connect_mcp", { name: "docs", url: "ftp://127.0.0.1/" }), "invalid_input", "url");
    modelError(await run.call("connect_mcp", { name: "docs", url: "not a url" }), "invalid_input", "url");
  });
});
