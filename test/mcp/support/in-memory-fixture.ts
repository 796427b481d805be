import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { McpCustomServerConfig } from "agent-tool-catalog/mcp";
import { createFixtureServer } from "./fixture-server.js";

/**
 * The fixture server in this process, over the SDK's in-memory transport: a fresh server per
 * connection, as a real process would be. For tests that count calls in the thousands.
 */
export function inMemoryFixture(name: string): McpCustomServerConfig {
  return {
    name,
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      void createFixtureServer().connect(server);
      return client;
    },
  };
}
