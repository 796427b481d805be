/**
 * Review (stop 39): counts the model reads still said "1 bytes" and "1 characters" in web_fetch's
 * header, download's too_large message and both cron schedulers' cut output. Each fails on the old
 * code; the controls keep the plural.
 */

import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { InProcessCronScheduler, ManualClock } from "agent-tool-catalog/host";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatPage } from "../../src/host/web/web-fetch-tool.js";
import { createDownloadTool } from "../../src/tools/fs/download-tool.js";
import { closeServer } from "../support/close-server.js";

let server: Server;
let base: string;
let workspace: string;
beforeAll(async () => {
  server = createServer((request, response) => response.end(request.url === "/one" ? "a" : "ab"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  workspace = await mkdtemp(path.join(tmpdir(), "atc-count-wording-"));
});
afterAll(async () => {
  await closeServer(server);
  await rm(workspace, { recursive: true, force: true });
});

describe("counts that agree with their number", () => {
  it("web_fetch's header: 1 byte; control: 2 bytes", () => {
    const page = (bytes: number) => ({
      url: "https://example.com/",
      status: 200,
      contentType: "text/plain",
      bytes,
      truncated: false,
      text: "a".repeat(bytes),
    });
    expect(formatPage(page(1) as Parameters<typeof formatPage>[0], 0, 100)).toContain("· 1 byte ·");
    expect(formatPage(page(2) as Parameters<typeof formatPage>[0], 0, 100)).toContain("· 2 bytes ·");
  });

  it("download's too_large: (2 bytes > 1 byte); control: a 1-byte body saves", async () => {
    const run = createRegistry({ tools: [createDownloadTool({ allowPrivateNetwork: true })] }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const refused = await run.call("download", { url: `${base}/two`, file_path: "two.txt", max_bytes: 1 });
    expect(refused.ok ? "ok" : refused.error.message).toContain("(2 bytes > 1 byte)");
    const saved = await run.call("download", { url: `${base}/one`, file_path: "one.txt", max_bytes: 1 });
    expect(saved.ok).toBe(true);
  });

  it("the in-process cron scheduler's cut output: first 1 character dropped; control: 2 characters", async () => {
    for (const [extra, words] of [
      [1, "[first 1 character dropped]"],
      [2, "[first 2 characters dropped]"],
    ] as const) {
      const clock = new ManualClock(Date.UTC(2026, 2, 1));
      const scheduler = new InProcessCronScheduler({
        clock,
        maxOutputChars: 10,
        runShell: async () => ({ exitCode: 0, output: "x".repeat(10 + extra) }),
      });
      const job = await scheduler.create({
        name: "tick",
        schedule: "* * * * *",
        executionType: "shell",
        command: "true",
        timeoutSeconds: 30,
        conversationId: "conv",
      });
      await clock.advance(61_000);
      await scheduler.idle();
      const details = await scheduler.get(job.id, 5);
      expect(details?.executions[0]?.output).toBe(`${words}\n${"x".repeat(10)}`);
      scheduler.close();
    }
  });
});
