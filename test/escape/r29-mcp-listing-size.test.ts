/**
 * Red team round 29: a hostile stdio MCP server's endless listing of large pages. Each
 * `tools/list` page is one message under the transport's 10 MiB limit, and the listing stops after
 * 100 pages or 5,000 tools, but every page was kept until the last: a server answering each page
 * with one tool and a 9 MiB `nextCursor` (or a 9 MiB description) made the host hold a gigabyte
 * over 100 pages (RSS +1,037 MiB, 52 s; a host with a 512 MB heap died of it). The attempt: a host
 * process with a 384 MB heap connects such a server and calls its first tool. Control: the same
 * server with short cursors is listed to the 100-page bound (every page's tool registered). The
 * same file: one tool's input schema holding 9 MiB (kept in its definition and sent to the model
 * with it), refused since this round; control, a 100 KiB one is kept.
 */
import { fileURLToPath } from "node:url";
import { createRegistry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { describe, expect } from "vitest";
import { repoRoot, spawnNode } from "../support/child-entry.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const host = fileURLToPath(new URL("./support/r29-listing-host.mjs", import.meta.url));
const server = fileURLToPath(new URL("./support/r29-huge-cursor-server.mjs", import.meta.url));
const fatSchemaServer = fileURLToPath(new URL("./support/r29-fat-schema-server.mjs", import.meta.url));

interface HostReport {
  readonly tools: number;
  readonly truncated: boolean;
  readonly peakMiB: number;
  readonly called: string;
}

async function connectFromHost(
  serverArgs: readonly string[],
): Promise<{ code: number | null; report: HostReport | undefined; out: string }> {
  const child = spawnNode(host, [server, ...serverArgs], {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=384" },
    // The build when it is current (test/support/child-entry.ts; the host imports public entries
    // only): under tsx on src/ each of the three hosts cost 3.4 CPU-s against 1.7 on dist/.
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
  const line = out.split("\n").find((text) => text.startsWith("{"));
  return { code, report: line === undefined ? undefined : (JSON.parse(line) as HostReport), out };
}

describe("escape attempts: an MCP server's endless listing of large pages", () => {
  escapeAttempt(
    "resources",
    "100 tools/list pages of 9 MiB each (a cursor, or a description): the host keeps a bounded part and lives, with a 384 MB heap",
    async () => {
      for (const mode of ["cursor", "description"]) {
        const { code, report, out } = await connectFromHost(["9", mode]);
        expect(code, `${mode}: ${out.slice(-600)}`).toBe(0);
        // The listing stopped at its size bound: the first pages' tools, said to be truncated.
        expect(report?.truncated, mode).toBe(true);
        expect(report?.tools, mode).toBeGreaterThanOrEqual(1);
        expect(report?.tools, mode).toBeLessThan(10);
        expect(report?.peakMiB, mode).toBeLessThan(300);
        expect(report?.called, mode).toBe("t0 ran");
      }
      // Control: short pages are read to the 100-page bound, each page's tool registered.
      const control = await connectFromHost(["0", "short"]);
      expect(control.code, control.out.slice(-600)).toBe(0);
      expect(control.report).toMatchObject({ tools: 100, truncated: true, called: "t0 ran" });
    },
    240_000,
  );

  escapeAttempt(
    "resources",
    "a tool whose input schema holds a 9 MiB description (the tool's own is cut at 4,000 characters): refused, never sent to the model",
    async () => {
      const schemaOf = async (kib: number) => {
        const registry = createRegistry();
        try {
          const handle = await connectMcpServer(registry, {
            name: "fat",
            command: process.execPath,
            args: [fatSchemaServer, String(kib)],
          });
          const tool = registry.list().find((descriptor) => descriptor.name === "mcp_fat_fat");
          return {
            tools: handle.status.tools,
            rejected: handle.status.rejected,
            size: JSON.stringify(tool?.inputSchema ?? null).length,
          };
        } finally {
          await registry.close();
        }
      };
      const refused = await schemaOf(9 * 1024);
      expect(refused.tools).toEqual(["mcp_fat_ok"]);
      expect(refused.rejected).toMatchObject([{ name: "mcp_fat_fat", reason: "invalid_input_schema" }]);
      // Control: a 100 KiB description inside the schema is registered and kept whole.
      const kept = await schemaOf(100);
      expect(kept.tools).toEqual(["mcp_fat_fat", "mcp_fat_ok"]);
      expect(kept.size).toBeGreaterThan(100 * 1024);
    },
    60_000,
  );
});
