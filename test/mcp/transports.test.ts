import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { corruptingTransport, createFixtureServer } from "./support/fixture-server.js";
import { startHttpFixture } from "./support/http-fixture.js";
import { stdioFixture } from "./support/stdio-fixture.js";
import { describeTransportConformance } from "./support/transport-suite.js";

describeTransportConformance("stdio", async (name) => ({ config: stdioFixture(name), teardown: async () => {} }));

describeTransportConformance("streamable HTTP", async (name) => {
  const http = await startHttpFixture(() => createFixtureServer());
  return { config: { name, url: http.url }, teardown: () => http.close() };
});

describeTransportConformance("legacy SSE", async (name) => {
  const http = await startHttpFixture(() => createFixtureServer());
  return { config: { name, url: http.sseUrl, transport: "sse" }, teardown: () => http.close() };
});

describeTransportConformance("a custom transport (in-memory pair)", async (name) => {
  const servers: ReturnType<typeof createFixtureServer>[] = [];
  return {
    config: {
      name,
      transport: () => {
        const [client, server] = InMemoryTransport.createLinkedPair();
        const fixture = createFixtureServer();
        servers.push(fixture);
        void fixture.connect(corruptingTransport(server, false));
        return client;
      },
    },
    teardown: async () => {
      await Promise.all(servers.map((server) => server.close()));
    },
  };
});
