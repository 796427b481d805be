/**
 * Red team round 28: descriptors a stdio MCP server inherits. A host process often runs with
 * descriptors that are not close-on-exec (a supervisor's socket, a log file a shell redirected, a
 * CI runner's pipe); Node marks only its own close-on-exec, and libuv closes nothing else, so every
 * process Node spawns gets them. The catalog closes them for sandboxed commands (a launcher before
 * bwrap, `test/escape/descriptors-sandbox.test.ts`) and gives MCP servers a cut-down environment,
 * but started a stdio server with plain `spawn`: a hostile server held the host's outside file open
 * for reading (fd 20) and writing (fd 21). The attempt: the server lists `/proc/self/fd` at start.
 * Control: the same server started by a plain `spawn` from the same host does see both.
 */
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect } from "vitest";
import { repoRoot, spawnNode } from "../support/child-entry.js";
import { escapeAttempt } from "./support/escape-attempt.js";

const host = fileURLToPath(new URL("./support/r28-inherited-fd-mcp-host.mjs", import.meta.url));
const probe = fileURLToPath(new URL("./support/r28-descriptor-probe-server.mjs", import.meta.url));

describe.skipIf(process.platform !== "linux")("escape attempts: descriptors of stdio MCP servers", () => {
  // With 300 more (on the log file too, fd 22 up) the catalog covers every open descriptor past 256
  // without reading each one's flags: the same guarantee on its other path.
  for (const more of [0, 300])
    escapeAttempt(
      "descriptors",
      `a stdio MCP server does not get the host's inherited descriptors (an outside file open to read on fd 20, to append on fd 21${more === 0 ? "" : `, ${more} more after them`})`,
      async () => {
        const outside = await mkdtemp(path.join(tmpdir(), "r28-fds-"));
        const secret = path.join(outside, "secret.txt");
        const log = path.join(outside, "host.log");
        const secretHandle = await open(secret, "w+");
        const logHandle = await open(log, "a");
        try {
          await secretHandle.writeFile("the host's secret\n");
          const stdio = [
            "ignore",
            "pipe",
            "inherit",
            ...Array(17).fill("ignore"),
            secretHandle.fd,
            logHandle.fd,
            ...Array(more).fill(logHandle.fd),
          ];
          const child = spawnNode(host, [probe], { cwd: repoRoot, stdio });
          let out = "";
          child.stdout?.on("data", (chunk: Buffer) => {
            out += chunk.toString();
          });
          const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
          expect(code, out).toBe(0);
          const { viaCatalog, plainSpawn } = JSON.parse(out) as Record<string, Record<string, string>>;
          // Control: the leak is real; a server started by a plain spawn holds both files.
          expect(plainSpawn?.["20"]).toBe(secret);
          expect(plainSpawn?.["21"]).toBe(log);
          // The attempt: started by the catalog it holds neither, at any number.
          expect(viaCatalog).toBeTypeOf("object");
          const targets = Object.values(viaCatalog ?? {});
          expect(targets).not.toContain(secret);
          expect(targets).not.toContain(log);
          expect(Object.keys(viaCatalog ?? {}).sort()).toContain("0");
        } finally {
          await secretHandle.close();
          await logHandle.close();
          await rm(outside, { recursive: true, force: true });
        }
      },
      60_000,
    );
});
