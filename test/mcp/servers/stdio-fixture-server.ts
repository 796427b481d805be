// A real MCP server over stdio, run as a child process: `node --import tsx stdio-fixture-server.ts [--hostile]`.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { corruptingTransport, createFixtureServer } from "../support/fixture-server.js";

const hostile = process.argv.includes("--hostile");
const server = createFixtureServer({ hostile });
await server.connect(corruptingTransport(new StdioServerTransport(), hostile));
process.stderr.write(`fixture server ${process.pid} ready\n`);
