/**
 * Red team round 15: a host's `WebFetcher` that ignores the request's `timeoutMs` and its signal
 * and never settles. `web_fetch` and `agentic_fetch` tell the model "Give up after this many
 * seconds" (`timeout_seconds`), but left the limit to the fetcher: the call, and the model's
 * whole step, waited for ever.
 */
import type { WebFetcher, WebPage } from "agent-tool-catalog/host";
import { webToolGroup } from "agent-tool-catalog/host";
import { describe, expect, it, vi } from "vitest";
import { hostRun, ScriptedRunner } from "../host/support/host-test-kit.js";

const never: WebFetcher = { fetch: () => new Promise<WebPage>(() => undefined) };

function webRun(fetcher: WebFetcher) {
  const runner = new ScriptedRunner(() => ({ output: "read it" }));
  const { run, registry } = hostRun([webToolGroup({ fetcher, agentRunner: runner })]);
  run.activate(["web_fetch", "agentic_fetch"]);
  return { run, registry };
}

describe("a host web fetcher that ignores its timeout and signal", () => {
  it.each(["web_fetch", "agentic_fetch"])(
    "%s gives up after timeout_seconds with the timeout error",
    async (tool) => {
      const { run, registry } = webRun(never);
      const started = Date.now();
      const input = { url: "https://example.com/", timeout_seconds: 1 };
      const result = await run.call(tool, tool === "agentic_fetch" ? { ...input, prompt: "What is it?" } : input);
      expect(result).toMatchObject({
        ok: false,
        error: { code: "timeout", message: expect.stringContaining("https://example.com/") },
      });
      expect(Date.now() - started).toBeLessThan(10_000);
      await registry.close();
    },
    30_000,
  );

  it.each(["web_fetch", "agentic_fetch"])(
    "%s without timeout_seconds gives up at the largest limit the model may set (120 s), not never",
    async (tool) => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      try {
        const { run, registry } = webRun(never);
        const input = { url: "https://example.com/" };
        let settled = false;
        const pending = run.call(tool, tool === "agentic_fetch" ? { ...input, prompt: "What is it?" } : input).finally(() => {
          settled = true;
        });
        // Not before: a host fetcher's own longer default (up to 120 s) is not cut.
        await vi.advanceTimersByTimeAsync(119_000);
        expect(settled).toBe(false);
        await vi.advanceTimersByTimeAsync(3_000);
        expect(await pending).toMatchObject({ ok: false, error: { code: "timeout", message: expect.stringContaining("120 s") } });
        await registry.close();
      } finally {
        vi.useRealTimers();
      }
    },
    30_000,
  );

  it("control: a fetcher answering within the limit is waited for, and its page comes back", async () => {
    const page: WebPage = {
      url: "https://example.com/",
      status: 200,
      contentType: "text/plain",
      text: "hello",
      bytes: 5,
      truncated: false,
    };
    const slow: WebFetcher = { fetch: () => new Promise((resolve) => setTimeout(() => resolve(page), 300)) };
    const { run, registry } = webRun(slow);
    const result = await run.call("web_fetch", { url: "https://example.com/", timeout_seconds: 1 });
    expect(result).toMatchObject({ ok: true, output: expect.stringContaining("hello") });
    await registry.close();
  });

  it("control: a fetcher's own timeout error, reported first, is what the model reads", async () => {
    const { ToolError } = await import("agent-tool-catalog");
    const honest: WebFetcher = {
      fetch: (request) =>
        new Promise((_, reject) =>
          setTimeout(() => reject(new ToolError("timeout", `own: ${request.timeoutMs} ms`)), (request.timeoutMs ?? 0) - 200),
        ),
    };
    const { run, registry } = webRun(honest);
    const result = await run.call("web_fetch", { url: "https://example.com/", timeout_seconds: 1 });
    expect(result).toMatchObject({ ok: false, error: { code: "timeout", message: "own: 1000 ms" } });
    await registry.close();
  });
});
