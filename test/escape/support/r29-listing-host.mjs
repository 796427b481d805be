// Red team round 29: a host process (run with a small heap by the test) that connects the
// huge-cursor server (argv: server script, then the server's arguments), calls its first tool and
// prints { tools, truncated, peakMiB, called }: how many of the server's tools were registered,
// whether the listing said it stopped at a limit, how far its resident memory grew, and the call.
import { loadEntry } from "../../support/load-entry.mjs";

const { createRegistry } = await loadEntry("index");
const { connectMcpServer } = await loadEntry("mcp/index");
const [server, ...serverArgs] = process.argv.slice(2);

const registry = createRegistry();
const base = process.memoryUsage().rss;
let peak = base;
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss);
}, 10);
const handle = await connectMcpServer(registry, { name: "cursors", command: process.execPath, args: [server, ...serverArgs] });
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);
const tools = registry.list().filter((tool) => tool.name.startsWith("mcp_cursors_")).length;
const run = registry.createRun({ loadModes: { mcp_cursors_t0: "essential" } });
const called = await run.call("mcp_cursors_t0", {});
console.log(
  JSON.stringify({
    tools,
    truncated: handle.status.truncated,
    peakMiB: Math.round((peak - base) / 1048576),
    called: called.ok ? called.output : called.error.code,
  }),
);
await registry.close();
