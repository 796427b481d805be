// Red team round 28: a host process started with descriptors that are NOT close-on-exec (fd 20 on
// an outside file, fd 21 on a connected unix socket, as a supervisor or a log redirection leaves
// them; test/escape/support/inherited-fd-host.mjs is the sandbox's twin). It connects a stdio MCP
// server (argv: probe server script) through the catalog, calls its "descriptors" tool and prints
// { viaCatalog, plainSpawn }: the server's descriptor targets when the catalog started it, and
// when a plain `spawn` started it (the control: the leak the catalog must close).
import { spawn } from "node:child_process";
import { loadEntry } from "../../support/load-entry.mjs";

const { createRegistry } = await loadEntry("index");
const { connectMcpServer } = await loadEntry("mcp/index");
const [probe] = process.argv.slice(2);

const registry = createRegistry();
await connectMcpServer(registry, { name: "probe", command: process.execPath, args: [probe], connectTimeoutMs: 30_000 });
const run = registry.createRun();
run.activate(["mcp_probe_descriptors"]);
const result = await run.call("mcp_probe_descriptors", {});
await registry.close();
const viaCatalog = JSON.parse(result.ok ? result.output : "null");

const plain = spawn(process.execPath, [probe, "--print"], { stdio: ["ignore", "pipe", "inherit"] });
let printed = "";
plain.stdout.on("data", (chunk) => {
  printed += chunk;
});
await new Promise((resolve) => plain.once("close", resolve));
process.stdout.write(JSON.stringify({ viaCatalog, plainSpawn: JSON.parse(printed) }));
