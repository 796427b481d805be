import { createRegistry, defineTool } from "../src/index.ts";
const defs = Array.from({ length: 20000 }, (_, i) => defineTool({ name: `tool_${i}`, description: `Tool ${i} does thing ${i % 97}.`, inputSchema: { type: "object" }, tier: "deferred", handler: () => "" }));
const run = createRegistry({ tools: defs }).createRun();
for (let k = 0; k < 5; k++) { const t = performance.now(); const r = await run.call(`tool_12${k}4x`, {}); console.log((performance.now() - t).toFixed(2), JSON.stringify(r.error?.suggestions)); }
