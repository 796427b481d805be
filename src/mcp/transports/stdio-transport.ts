import { showControlCharacters } from "../../tools/shell/visible-control-characters.js";
import type { McpStdioServerConfig } from "../mcp-server-config.js";
import type { McpTransportDriver } from "./mcp-transport.js";
import { ProcessGroupStdioTransport } from "./process-group-stdio-transport.js";

const STDERR_TAIL_BYTES = 4096;
// The SDK's default; a single message over this closes the connection.
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;
// How long the server has to exit after stdin closes, and again after SIGTERM.
const GRACE_MS = 2000;

/**
 * Spawns the server (no shell) in its own process group, with stderr piped: its last 4 KiB
 * explain a crash in the error the model gets, and nothing the server logs lands in the host's
 * terminal. That tail shows control characters as visible stand-ins: the error also reaches the
 * host's logs and console, where an escape sequence the server printed (a title, OSC 52, a
 * cleared screen) would act. Closing ends the whole group, so processes the server started do not outlive it.
 * @public
 */
export function stdioTransportDriver(config: McpStdioServerConfig): McpTransportDriver {
  return {
    kind: "stdio",
    create: () => {
      const transport = new ProcessGroupStdioTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        env: config.env,
        cwd: config.cwd,
        maxBufferSize: MAX_MESSAGE_BYTES,
        graceMs: GRACE_MS,
      });
      let tail = Buffer.alloc(0);
      // Reading stderr also keeps a chatty server from blocking on a full pipe.
      transport.stderr.on("data", (chunk: Buffer | string) => {
        const next = Buffer.concat([tail, typeof chunk === "string" ? Buffer.from(chunk) : chunk]);
        tail = next.length > STDERR_TAIL_BYTES ? next.subarray(next.length - STDERR_TAIL_BYTES) : next;
      });
      return {
        transport,
        pid: () => transport.pid,
        diagnostics: () => showControlCharacters(tail.toString("utf8").trim()),
      };
    },
  };
}
