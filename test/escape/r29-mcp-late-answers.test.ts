/**
 * Red team round 29: answers after the call is over. A hostile stdio MCP server answers a call the
 * host cancelled (an aborted `run.call`) anyway, 1.5 s later, under the cancelled request's id,
 * while the host waits for its next call on the same connection: the late answer must not become
 * the next call's result, nor the cancelled call's, and the connection goes on. Then the host
 * closes the registry while one more late answer is on its way: nothing is delivered and nothing
 * throws. Control (first): not cancelled, the slow call gets its late answer.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { createRegistry, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";

const server = fileURLToPath(new URL("./support/r29-late-answer-server.mjs", import.meta.url));
const LATE = "LATE ANSWER";

let registry: Registry | undefined;
afterEach(async () => {
  await registry?.close();
  registry = undefined;
});

async function connect() {
  registry = createRegistry();
  await connectMcpServer(registry, { name: "late", command: process.execPath, args: [server] });
  return { registry, run: registry.createRun({ loadModes: { mcp_late_slow: "essential", mcp_late_ok: "essential" } }) };
}

const text = (result: ToolCallResult) => JSON.stringify(result);

describe("escape attempts: MCP answers after the call", () => {
  escapeAttempt(
    "processes",
    "a server answers a cancelled call late, during the next call, and after the registry closed: no call gets the late answer",
    async () => {
      const { registry: late, run } = await connect();
      // Control: not cancelled, the slow call gets its late answer.
      expect(await run.call("mcp_late_slow", {})).toMatchObject({ ok: true, output: expect.stringContaining(LATE) });
      const abort = new AbortController();
      setTimeout(() => abort.abort(), 200);
      const cancelled = await run.call("mcp_late_slow", {}, { signal: abort.signal });
      expect(cancelled).toMatchObject({ ok: false });
      expect(text(cancelled)).not.toContain(LATE);
      // The next calls span the moment the late answer arrives (1.5 s after the cancelled call).
      const next: ToolCallResult[] = [];
      const until = Date.now() + 2_000;
      while (Date.now() < until) {
        next.push(await run.call("mcp_late_ok", {}));
        await sleep(100);
      }
      for (const result of next) expect(result).toMatchObject({ ok: true, output: "ok ran" });
      // A late answer on its way while the registry closes: delivered nowhere, nothing thrown.
      const pending = run.call("mcp_late_slow", {});
      await sleep(200);
      await late.close();
      registry = undefined;
      const closed = await pending;
      expect(text(closed)).not.toContain(LATE);
      await sleep(1_600);
    },
    60_000,
  );
});
