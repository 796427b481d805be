// Child of test/tools/lazy-ajv.test.ts: defines 100 tools with plain JSON Schemas in a new process
// and reports the CPU time that took and whether Ajv was loaded, before and after the first call.
// argv[2]: "new" (the package as it is) or "old" (the same, after loading Ajv and checking each
// schema against its meta-schema first: what defineTool did before the check became lazy).
import { createRequire } from "node:module";
import { loadEntry } from "../../support/load-entry.mjs";

const mode = process.argv[2];
const { createRegistry, defineTool } = await loadEntry("index");
const require = createRequire(import.meta.url);
// Ajv is loaded by `createRequire` (src/tool/load-on-demand.ts): CommonJS's cache holds its files.
const ajvLoaded = () => Object.keys(require.cache).some((file) => /[\\/]node_modules[\\/]ajv[\\/]/.test(file));

const schemaOf = (i) => ({
  type: "object",
  properties: { name: { type: "string", minLength: 1 }, count: { type: "integer", minimum: 0 }, [`f${i}`]: { type: "boolean" } },
  required: ["name"],
  additionalProperties: false,
});
const beforeDefine = ajvLoaded();
const start = process.cpuUsage();
if (mode === "old") {
  const { Ajv } = require("ajv");
  const meta = new Ajv({ strict: false, validateFormats: false });
  for (let i = 0; i < 100; i++) if (meta.validateSchema(schemaOf(i)) !== true) throw new Error("invalid");
}
const tools = [];
for (let i = 0; i < 100; i++) {
  tools.push(
    defineTool({ name: `tool_${i}`, description: `Tool ${i}.`, inputSchema: schemaOf(i), handler: (input) => input.name }),
  );
}
const used = process.cpuUsage(start);
const afterDefine = ajvLoaded();
let refused;
try {
  defineTool({
    name: "bad",
    description: "x",
    inputSchema: { type: "object", properties: { a: { type: "strin" } } },
    handler: () => 1,
  });
} catch (error) {
  refused = { code: error.code, message: error.message };
}
const afterRefusal = ajvLoaded();
const run = createRegistry({ tools }).createRun();
const ok = await run.call("tool_0", { name: "x" });
const afterCall = ajvLoaded();
const invalid = await run.call("tool_1", { name: "" });
console.log(
  JSON.stringify({
    cpuMs: (used.user + used.system) / 1000,
    beforeDefine,
    afterDefine,
    refused,
    afterRefusal,
    okCall: ok.ok,
    afterCall,
    invalidCall: invalid.ok ? "ok" : invalid.error.code,
  }),
);
