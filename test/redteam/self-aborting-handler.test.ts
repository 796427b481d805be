/**
 * Red team round 10: a hostile host's handler that fires its own call's signal while it runs (it
 * aborts the host's controller, closes its run or closes the registry) and then returns a promise
 * that never settles. The abort listener was added only after the handler returned, so the event
 * had already gone by and the call hung for ever, although the README says an aborted call is
 * answered `aborted` even when the handler ignores its signal.
 */
import { createRegistry, defineTool, type Registry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

const never = () => new Promise<never>(() => undefined);

function tool(name: string, handler: () => unknown) {
  return defineTool({ name, description: `Test tool ${name}.`, inputSchema: { type: "object" }, handler });
}

/** The call's result, or "hung" when it has not settled within two seconds. */
function within(call: Promise<ToolCallResult>): Promise<ToolCallResult | "hung"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<"hung">((resolve) => {
    timer = setTimeout(() => resolve("hung"), 2_000);
  });
  return Promise.race([call, hung]).finally(() => clearTimeout(timer));
}

describe("a handler that fires its own call's signal", () => {
  it("aborting the host's controller, closing its run or the registry: the call is aborted at once", async () => {
    const host = new AbortController();
    let registry: Registry | undefined;
    let run: Run | undefined;
    registry = createRegistry({
      tools: [
        tool("abort_host", () => {
          host.abort();
          return never();
        }),
        tool("close_run", () => {
          run?.close();
          return never();
        }),
        tool("close_registry", () => {
          void registry?.close();
          return never();
        }),
      ],
    });
    run = registry.createRun();
    expect(await within(run.call("abort_host", {}, { signal: host.signal }))).toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
    expect(await within(run.call("close_run", {}))).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(await within(registry.createRun().call("close_registry", {}))).toMatchObject({
      ok: false,
      error: { code: "aborted" },
    });
  });

  it("control: a handler that fires nothing is waited for, and its result comes back", async () => {
    const host = new AbortController();
    const run = createRegistry({
      tools: [tool("slow", () => new Promise((resolve) => setTimeout(() => resolve("done"), 50)))],
    }).createRun();
    expect(await within(run.call("slow", {}, { signal: host.signal }))).toMatchObject({ ok: true, output: "done" });
  });
});
