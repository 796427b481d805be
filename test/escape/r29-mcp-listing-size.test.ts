/**
 * Red team round 29: a hostile stdio MCP server's endless listing of large pages. Each
 * `tools/list` page is one message under the transport's 10 MiB limit, and the listing stops after
 * 100 pages or 5,000 tools, but every page was kept until the last: a server answering each page
 * with one tool and a 9 MiB `nextCursor` (or a 9 MiB description) made the host hold a gigabyte
 * over 100 pages (RSS +1,037 MiB, 52 s; a host with a 512 MB heap died of it). The attempt: a host
 * process with a 384 MB heap connects such a server and calls its first tool. Control: the same
 * server with short cursors is listed to the 100-page bound (every page's tool registered).
 */
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { repoRoot, spawnNode } from "../support/child-entry.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const host = fileURLToPath(new URL("./support/r29-listing-host.mjs", import.meta.url));
const server = fileURLToPath(new URL("./support/r29-huge-cursor-server.mjs", import.meta.url));

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
    format: "src",
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
});
