/**
 * The README's quick start, as a runnable file (a test checks the README shows exactly this).
 *   npx tsx examples/quick-start.ts
 */
// readme:start
import { createRegistry, defineTool } from "agent-tool-catalog";
import { z } from "zod";

const forecast = defineTool({
  name: "weather_forecast",
  description: "Get the weather forecast for a city for the next days.",
  tier: "deferred", // hidden until activated with find_tool
  inputSchema: z.object({ city: z.string(), days: z.number().int().min(1).max(7).default(3) }),
  handler: ({ city, days }) => ({ city, days, sky: "sunny" }), // input is typed from the schema
});

const registry = createRegistry({ tools: [forecast] });
const run = registry.createRun(); // one conversation

const names = () => run.definitions().map((tool) => tool.name); // what you send the model
console.log(names()); // [ 'find_tool' ]
await run.call("find_tool", { query: "weather forecast" });
console.log(names()); // [ 'find_tool', 'weather_forecast' ]
console.log(await run.call("weather_forecast", '{"city":"Lisbon"}')); // { ok: true, ..., output: { city: 'Lisbon', days: 3, sky: 'sunny' } }

// readme:end

export { run };
