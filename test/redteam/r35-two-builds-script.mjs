// Red team round 35: the ESM and the CommonJS build loaded in one process, their parts mixed in
// one registry and one loop: tools defined by one copy registered in the other's registry, a run
// of one driven by the other's adapters, errors of one checked with the other's classes, a denial
// by allowedTools and by approval whichever copy asks. Prints one JSON line. argv: the dist
// directory.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const load = async (entry) => ({
  esm: await import(pathToFileURL(path.join(dist, entry, "index.js")).href),
  cjs: createRequire(import.meta.url)(path.join(dist, entry, "index.cjs")),
});
const root = {
  esm: await import(pathToFileURL(path.join(dist, "index.js")).href),
  cjs: createRequire(import.meta.url)(path.join(dist, "index.cjs")),
};
const anthropic = await load("anthropic");
const openai = await load("openai");
const aiSdk = await load("ai-sdk");

const ran = [];
const tool = (copy, name, extra = {}) =>
  copy.defineTool({
    name,
    description: `The ${name} tool.`,
    tier: "core",
    inputSchema: { type: "object", properties: { n: { type: "number" } } },
    handler: (input) => {
      ran.push(name);
      return { got: input.n ?? null };
    },
    ...extra,
  });

const out = {};
for (const [label, registryCopy, toolCopy, adapterCopy] of [
  ["esm registry, cjs tools, cjs adapters", "esm", "cjs", "cjs"],
  ["cjs registry, esm tools, esm adapters", "cjs", "esm", "esm"],
  ["esm registry, esm tools, esm adapters", "esm", "esm", "esm"],
]) {
  ran.length = 0;
  const registry = root[registryCopy].createRegistry({
    tools: [tool(root[toolCopy], "echo"), tool(root[toolCopy], "hidden"), tool(root[toolCopy], "risky", { mutating: true })],
    approvals: new root[adapterCopy].InMemoryApprovalBroker(),
  });
  let duplicate = "no error";
  try {
    registry.register(tool(root[adapterCopy], "echo"));
  } catch (error) {
    // instanceof holds for one copy only (documented); isInstance is the check across copies.
    duplicate = {
      code: error.code,
      isInstance: [root.esm.ToolDefinitionError, root.cjs.ToolDefinitionError, root.esm.CatalogError, root.cjs.CatalogError].map(
        (kind) => kind.isInstance(error),
      ),
      notOther: [root.esm.ToolError, root.cjs.ToolError, root.esm.ConfigurationError, root.cjs.ConfigurationError].map((kind) =>
        kind.isInstance(error),
      ),
    };
  }
  const run = registry.createRun({
    allowedTools: ["echo", "risky"],
    permissions: { approval: "destructive" },
    approvalTimeoutMs: 200,
  });
  const uses = [
    { type: "tool_use", id: "toolu_1", name: "echo", input: { n: 1 } },
    { type: "tool_use", id: "toolu_2", name: "hidden", input: {} },
    { type: "tool_use", id: "toolu_3", name: "risky", input: {} },
  ];
  const results = await anthropic[adapterCopy].runAnthropicToolUses(run, uses);
  const chat = await openai[adapterCopy].runOpenAIChatToolCalls(run, [
    { id: "c1", type: "function", function: { name: "echo", arguments: '{"n":2}' } },
  ]);
  const { tools } = aiSdk[adapterCopy].createAiSdkTools(run);
  const sdk = await tools.echo.execute({ n: 3 }, { toolCallId: "s1", messages: [] });
  out[label] = {
    duplicate,
    anthropic: results.map((result) => [result.tool_use_id, result.is_error === true, String(result.content).slice(0, 60)]),
    chat: chat.map((message) => message.content),
    sdkTools: Object.keys(tools).sort(),
    sdk,
    ran: [...ran],
  };
  await registry.close();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
