// A real MCP server over stdio, run as a child process: `node stdio-fixture-server.mjs [--hostile]`.
// Plain JavaScript: it starts as plain node (about 0.6 s of CPU), not under tsx (about 1.4 s).
import { appendFileSync } from "node:fs";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { corruptingTransport, createFixtureServer } from "./fixture-server.mjs";

const hostile = process.argv.includes("--hostile");
// With ATC_FIXTURE_STARTED_FILE set, a line is added to that file when a `slow` call begins, so a
// test can act once the call runs instead of after a guessed delay.
const startedFile = process.env.ATC_FIXTURE_STARTED_FILE;
const server = createFixtureServer({
  hostile,
  ...(startedFile === undefined ? {} : { onSlowStarted: () => appendFileSync(startedFile, "started\n") }),
});
await server.connect(corruptingTransport(new StdioServerTransport(), hostile));
process.stderr.write(`fixture server ${process.pid} ready\n`);
