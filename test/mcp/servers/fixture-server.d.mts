// Types for fixture-server.mjs.
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

/** What a fixture server saw, for assertions (in-process servers only). */
export interface FixtureState {
  /** Calls of `slow` the server has begun (counted before it waits). */
  started: number;
  /** Calls of `slow` whose request was cancelled by the client. */
  cancelled: number;
  /** Calls of `slow` that ran to the end. */
  completed: number;
}

/** Options of {@link createFixtureServer}. */
export interface FixtureOptions {
  /** Also list tools with hostile names (unicode, 200 characters, names equal after sanitizing). */
  readonly hostile?: boolean;
  /** Shared counters. */
  readonly state?: FixtureState;
  /** Called when a `slow` call begins: a test in another process learns that the call is running. */
  readonly onSlowStarted?: () => void;
}

/**
 * A real MCP server (the SDK's `McpServer`) with the tools the integration tests need: plain,
 * slow, huge, failing, crashing, structured, binary and malformed results, annotations, resources,
 * and tools that add or remove tools (which sends `notifications/tools/list_changed`).
 */
export function createFixtureServer(options?: FixtureOptions): McpServer;

/** Names a registry must survive. */
export const HOSTILE_NAMES: {
  readonly collidingA: "Read-File";
  readonly collidingB: "read.file";
  readonly unicode: "日本語ツール";
  readonly accented: "café crème";
  readonly longA: string;
  readonly longB: string;
};

/**
 * Wraps a server transport so that some answers come out wrong, as a buggy or hostile server's
 * would: `malformed` results lose their shape, and `tools/list` (in hostile mode) gains entries
 * with broken schemas. The SDK's server validates its own results, so this happens on the wire.
 */
export function corruptingTransport(inner: Transport, hostile: boolean): Transport;
