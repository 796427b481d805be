import { createRegistry, defineTool } from "../src/index.ts";
const N = 20000;
const defs = Array.from({ length: N }, (_, i) => defineTool({ name: `tool_${i}`, description: `Tool number ${i} does thing ${i % 97}.`, inputSchema: { type: "object", properties: { q: { type: "string", description: "query" } } }, tier: "deferred", handler: () => "" }));
const registry = createRegistry();
let t = performance.now();
for (const d of defs) registry.register(d);
console.log("register us/tool", ((performance.now() - t) * 1000 / N).toFixed(1));
