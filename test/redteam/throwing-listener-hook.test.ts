/**
 * Red team round 9: a host whose `onListenerError` hook throws (a logger that throws, or the
 * common `(error) => { throw error; }`) while a listener throws. The hook's error once escaped
 * `emit()` into whatever emitted the event: a `write` that was on disk came back as
 * `internal_error` (the model writes again), `find_tool` said `tool_failed` while the tool was
 * activated, `register()` threw after registering, and an unknown name lost its suggestions.
 * Now the hook's error goes to a later tick and every emitter reports what it did.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type CatalogEvents, createRegistry, defineTool } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectUncaught } from "../support/collect-uncaught.js";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-hook-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const deferred = defineTool({
  name: "weather_forecast",
  description: "Get the weather forecast for a city.",
  tier: "deferred",
  inputSchema: { type: "object" },
  handler: () => "sunny",
});
const plain = defineTool({ name: "plain", description: "Plain.", inputSchema: { type: "object" }, handler: () => 1 });

const EVENTS = [
  "tool.called",
  "tool.result",
  "tool.error",
  "tool.activated",
  "registry.changed",
] as const satisfies readonly (keyof CatalogEvents)[];

describe("an onListenerError hook that throws", () => {
  for (const event of EVENTS) {
    it(`never changes what a call, an activation or a registration reports (listener of ${event} throws)`, async () => {
      const hookCalls: string[] = [];
      const registry = createRegistry({
        tools: [...createFileTools(), deferred],
        onListenerError: (error, type) => {
          hookCalls.push(type);
          throw error;
        },
      });
      registry.events.on(event, () => {
        throw new Error(`listener of ${event}`);
      });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } });
      const results: unknown[] = [];
      const caught = await collectUncaught(async () => {
        results.push(await run.call("write", { path: "a.txt", content: "written once\n" }));
        results.push(await run.call("find_tool", { query: "select:weather_forecast" }));
        results.push(await run.call("weather_forcast", {}));
        expect(() => registry.register(plain)).not.toThrow();
      });
      // What happened is what is reported.
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("written once\n");
      expect(results[0]).toMatchObject({ ok: true });
      expect(results[1]).toMatchObject({ ok: true, output: { activated: [{ name: "weather_forecast" }] } });
      expect(run.definitions().map((tool) => tool.name)).toContain("weather_forecast");
      expect(results[2]).toMatchObject({ ok: false, error: { code: "unknown_tool", suggestions: ["weather_forecast"] } });
      expect(registry.get("plain")).toBeDefined();
      // The hook ran, and its error was not swallowed: it surfaced on a later tick.
      expect(hookCalls.length).toBeGreaterThan(0);
      expect(hookCalls.every((type) => type === event)).toBe(true);
      expect(caught.length).toBe(hookCalls.length);
      expect(caught.every((error) => (error as Error).message === `listener of ${event}`)).toBe(true);
      await registry.close();
    });
  }

  it("control: a hook that does not throw gets each listener error, and nothing is rethrown", async () => {
    const seen: string[] = [];
    const registry = createRegistry({ tools: [plain], onListenerError: (_error, type) => seen.push(type) });
    registry.events.on("tool.result", () => {
      throw new Error("listener");
    });
    const caught = await collectUncaught(async () => {
      expect(await registry.createRun().call("plain", {})).toMatchObject({ ok: true, output: 1 });
    });
    expect(seen).toEqual(["tool.result"]);
    expect(caught).toEqual([]);
  });
});
