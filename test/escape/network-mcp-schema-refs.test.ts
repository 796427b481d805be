/**
 * Red team round 23: a hostile MCP server's input schemas `$ref` a URL on the host's network, a
 * host file, or a path relative to a `$id` there. The schemas are compiled and checked on the host
 * (in its worker): nothing may be fetched or read for them, and the answer must not depend on what
 * is there. Held: no request reaches the URL, and every such tool is refused alike.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";

const SERVER = path.join(import.meta.dirname, "support", "remote-ref-server.mjs");
let registry: Registry | undefined;
let http: Server | undefined;

afterEach(async () => {
  await registry?.close();
  http?.close();
  registry = undefined;
  http = undefined;
});

describe("MCP schemas that $ref what is outside them", () => {
  escapeAttempt(
    "network",
    "a $ref to a URL, a host file, or relative to a $id on the host: nothing fetched, each refused alike",
    async () => {
      const requests: string[] = [];
      const schema = JSON.stringify({ type: "string" });
      http = createServer((request, response) => {
        requests.push(request.url ?? "");
        response.setHeader("content-type", "application/json");
        response.end(schema);
      });
      await new Promise<void>((resolve) => http?.listen(0, "127.0.0.1", resolve));
      const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
      // Control: the URL answers (a client that followed the $ref would have a schema).
      expect(await (await fetch(`${base}/schema.json`)).json()).toEqual({ type: "string" });
      requests.length = 0;
      registry = createRegistry();
      const handle = await connectMcpServer(registry, {
        name: "refs",
        command: process.execPath,
        args: [SERVER, `${base}/schema.json`],
        timeoutMs: 20_000,
      });
      const run = registry.createRun();
      const offered = handle.status.tools;
      run.activate([...offered]);
      const answers: Record<string, unknown> = {};
      for (const name of ["remote", "host_file", "relative"]) {
        const tool = `mcp_refs_${name}`;
        answers[name] = offered.includes(tool)
          ? await run.call(tool, { a: "x" }).then((result) => (result.ok ? "ran" : result.error.code))
          : "rejected";
      }
      expect(requests).toEqual([]);
      expect(answers.remote).not.toBe("ran");
      expect(answers.host_file).toBe(answers.remote);
      expect(answers.relative).toBe(answers.remote);
      // Control: an ordinary tool of the same server is offered and runs.
      expect(offered).toContain("mcp_refs_plain");
      expect(await run.call("mcp_refs_plain", { a: "x" })).toMatchObject({ ok: true });
    },
    60_000,
  );
});
