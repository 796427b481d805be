// The notification-flood server (the SDK's McpServer) over HTTP in a process of its own, so that
// a test measuring the host's CPU does not count the server's: streamable HTTP at /mcp, legacy
// SSE at /sse on 127.0.0.1. Prints the base URL on its first line; exits when stdin closes.
import { startHttpFixture } from "../support/http-fixture.js";
import { buildNotificationFloodServer } from "./notification-flood-server.mjs";

const fixture = await startHttpFixture(buildNotificationFloodServer);
process.stdout.write(`${fixture.url}\n${fixture.sseUrl}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void fixture.close().finally(() => process.exit(0));
});
