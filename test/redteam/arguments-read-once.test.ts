/**
 * Red team round 15: arguments a host hands to `run.call` as an object are read once. A getter or
 * proxy that answers differently on each read (host code passing objects straight through, as the
 * Anthropic adapter does with `tool_use.input`) showed a person one value for approval and ran
 * the handler with another, and let the schema check a value the handler never saw.
 */
import { createRegistry, defineTool, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

function setup() {
  const broker = new InMemoryApprovalBroker();
  const shown: unknown[] = [];
  broker.events.on("approval.requested", (request) => {
    void broker.approve(request.id);
    shown.push(JSON.parse(JSON.stringify(request.input)));
  });
  const ran: unknown[] = [];
  const jsonTool = defineTool({
    name: "deploy_json",
    description: "Deploys.",
    mutating: true,
    inputSchema: { type: "object", properties: { target: { type: "string" } }, required: ["target"] },
    handler: (input: { target: unknown }) => {
      ran.push({ target: input.target });
      return "ok";
    },
  });
  const zodTool = defineTool({
    name: "deploy_zod",
    description: "Deploys.",
    mutating: true,
    inputSchema: z.object({ target: z.string(), extra: z.any() }),
    handler: (input) => {
      ran.push({ target: input.target, extra: JSON.parse(JSON.stringify(input.extra ?? null)) });
      return "ok";
    },
  });
  const run = createRegistry({ tools: [jsonTool, zodTool], approvals: broker }).createRun({
    permissions: { approval: "destructive" },
  });
  return { run, shown, ran };
}

/** An object whose `target` reads "staging" for the first `flipAt` reads, then `later`. */
function flipping(flipAt: number, later: unknown = "prod"): { readonly target: unknown } {
  let reads = 0;
  return {
    get target() {
      return reads++ < flipAt ? "staging" : later;
    },
  };
}

describe("arguments given as an object are read once", () => {
  it("a getter flipping at any read: the person approves exactly what the handler runs with", async () => {
    for (let flipAt = 0; flipAt < 10; flipAt++) {
      const { run, shown, ran } = setup();
      const json = await run.call("deploy_json", flipping(flipAt));
      const zod = await run.call("deploy_zod", { target: "svc", extra: flipping(flipAt) });
      expect(json.ok && zod.ok).toBe(true);
      // What was shown is what ran, whatever the read that flipped.
      expect(ran).toEqual([shown[0], shown[1]]);
    }
  });

  it("a proxy answering a string to the schema and a number to the handler cannot pass one for the other", async () => {
    for (let flipAt = 0; flipAt < 10; flipAt++) {
      const { run, shown, ran } = setup();
      let reads = 0;
      const proxy = new Proxy({ target: "staging" } as Record<string, unknown>, {
        get: (target, key, receiver) => (key === "target" && reads++ >= flipAt ? 42 : Reflect.get(target, key, receiver)),
      });
      const result = await run.call("deploy_json", proxy);
      if (result.ok) {
        // Validated as a string: the handler got that string, and it is what was approved.
        expect(ran).toEqual([{ target: "staging" }]);
        expect(shown).toEqual([{ target: "staging" }]);
      } else {
        // Or the number was read first: refused as invalid, nothing shown, nothing run.
        expect(result.error.code).toBe("invalid_input");
        expect(ran).toEqual([]);
      }
    }
  });

  it("a getter that grows past the size limit after it was measured is refused, not passed on", async () => {
    let reads = 0;
    const growing = {
      get target() {
        return reads++ === 0 ? "x" : "x".repeat(2_000);
      },
    };
    const limited = createRegistry({
      tools: [
        defineTool({
          name: "echo",
          description: "Echoes.",
          inputSchema: { type: "object", properties: { target: { type: "string" } } },
          handler: (input: { target?: string }) => input.target?.length ?? 0,
        }),
      ],
    }).createRun({ maxInputLength: 1_000 });
    expect(await limited.call("echo", growing)).toMatchObject({ ok: false, error: { code: "input_too_large" } });
    // Control: a plain object under the limit goes through.
    expect(await limited.call("echo", { target: "x".repeat(500) })).toMatchObject({ ok: true, output: 500 });
  });

  it("Dates, Maps, typed arrays, frozen objects and __proto__ keys reach every step as the JSON they stand for (held before too)", async () => {
    const { run, shown, ran } = setup();
    const extra = Object.freeze({
      when: new Date(Date.UTC(2026, 0, 2)),
      map: new Map([["a", 1]]),
      bytes: new Uint8Array([7, 8]),
      nested: JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    });
    const result = await run.call("deploy_zod", { target: "svc", extra });
    expect(result.ok).toBe(true);
    const expected = {
      target: "svc",
      extra: {
        when: "2026-01-02T00:00:00.000Z",
        map: {},
        bytes: { "0": 7, "1": 8 },
        nested: JSON.parse('{"__proto__": {"polluted": true}}'),
      },
    };
    expect(shown).toEqual([expected]);
    expect(ran).toEqual([expected]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("control: plain objects pass unchanged, and a chain nested past JSON's reach is invalid_input, not a crash", async () => {
    const { run, shown, ran } = setup();
    expect(await run.call("deploy_json", { target: "staging" })).toMatchObject({ ok: true });
    expect(shown).toEqual([{ target: "staging" }]);
    expect(ran).toEqual([{ target: "staging" }]);
    let deep: Record<string, unknown> = { end: true };
    for (let level = 0; level < 50_000; level++) deep = { next: deep };
    const result = await run.call("deploy_zod", { target: "svc", extra: deep });
    expect(result).toMatchObject({ ok: false, error: { code: "invalid_input", message: expect.stringContaining("nested") } });
    expect(ran).toHaveLength(1);
  });
});
