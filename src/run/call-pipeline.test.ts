import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod-v3";
import { childFormat, entryUrl } from "../../test/support/child-entry.js";
import { collectUncaught } from "../../test/support/collect-uncaught.js";
import { CatalogError } from "../errors/catalog-error.js";
import { ConfigurationError } from "../errors/configuration-error.js";
import { ToolDefinitionError } from "../errors/tool-definition-error.js";
import { ToolError } from "../errors/tool-error.js";
import { InMemoryApprovalBroker } from "../policy/in-memory-approval-broker.js";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import type { JsonObjectSchema } from "../tool/json-schema.js";
import { MAX_THENABLE_DEPTH } from "../tool/settle-thenable.js";
import { formatToolResult, type ToolCallResult } from "../tool/tool-call-result.js";
import { ActivationTracker } from "./activation-tracker.js";

function errorOf(result: ToolCallResult) {
  if (result.ok) throw new Error(`expected a failure, got ${String(result.output)}`);
  return result.error;
}

const throwing = (value: () => unknown) =>
  defineTool({ name: "hostile", description: "Throws.", inputSchema: z.object({}), handler: () => value() });

describe("run.call always resolves (issue 15.1)", () => {
  it("for a handler throwing a null-prototype object, a throwing message getter, a symbol", async () => {
    const thrown: (() => unknown)[] = [
      () => {
        throw Object.create(null);
      },
      () => {
        throw Object.defineProperty({}, "message", {
          get() {
            throw new Error("getter");
          },
        });
      },
      () => {
        throw Symbol("s");
      },
      () => Promise.reject(Object.create(null)),
    ];
    for (const value of thrown) {
      const run = createRegistry({ tools: [throwing(value)] }).createRun();
      const result = await run.call("hostile", {});
      expect(errorOf(result).code).toBe("tool_failed");
      expect(() => formatToolResult(result)).not.toThrow();
    }
  });

  it("for a non-string tool name from the host", async () => {
    const run = createRegistry().createRun();
    for (const name of [
      42,
      null,
      {
        toString: () => {
          throw new Error("x");
        },
      },
      10n,
      Symbol("x"),
    ]) {
      const result = await run.call(name as unknown as string, {});
      expect(errorOf(result).code).toBe("unknown_tool");
      expect(typeof result.tool).toBe("string");
    }
  });

  it("for a huge tool name: refused without echoing it (result bounded)", async () => {
    const run = createRegistry().createRun();
    const result = await run.call("x".repeat(1_000_000), {});
    expect(errorOf(result).code).toBe("unknown_tool");
    expect(JSON.stringify(result).length).toBeLessThan(2_000);
    // Control: a normal unknown name is still echoed, with suggestions.
    expect((await run.call("find_tol", {})).tool).toBe("find_tol");
  });

  it("for a handler returning a function or a symbol: invalid_output, not an empty success", async () => {
    const registry = createRegistry();
    for (const [name, value] of [
      ["gives_function", () => 1],
      ["gives_symbol", Symbol("s")],
    ] as const) {
      registry.register(
        defineTool({ name, description: "Returns no data.", inputSchema: z.object({}), handler: () => value as never }),
      );
    }
    registry.register(
      defineTool({
        name: "gives_nothing",
        description: "Returns nothing.",
        inputSchema: z.object({}),
        handler: () => undefined as never,
      }),
    );
    const run = registry.createRun();
    expect(errorOf(await run.call("gives_function", {})).code).toBe("invalid_output");
    expect(errorOf(await run.call("gives_symbol", {})).code).toBe("invalid_output");
    // Control: returning nothing is a success.
    expect((await run.call("gives_nothing", {})).ok).toBe(true);
  });

  it("for a handler returning a thenable that never settles, once the signal aborts", async () => {
    const never = defineTool({
      name: "never",
      description: "Never settles.",
      inputSchema: z.object({}),
      // A thenable that never settles (not a native promise): the hostile case under test.
      // biome-ignore lint/suspicious/noThenProperty: the thenable is the point of the test.
      handler: () => Object.defineProperty({}, "then", { value: () => undefined }) as unknown as Promise<string>,
    });
    const run = createRegistry({ tools: [never] }).createRun();
    const controller = new AbortController();
    const pending = run.call("never", {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    const result = await pending;
    expect(errorOf(result).code).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("for a thenable that resolves to itself: timers keep firing and the call fails as tool_failed", async () => {
    // Awaiting it would queue microtasks forever: no timer, and so no abort, could ever run again.
    const selfResolving: { then: (resolve: (value: unknown) => void) => void } = {
      // biome-ignore lint/suspicious/noThenProperty: the thenable is the point of the test.
      then: (resolve) => resolve(selfResolving),
    };
    const tool = defineTool({ name: "loop", description: "Loops.", inputSchema: z.object({}), handler: () => selfResolving });
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 1);
    try {
      const result = await createRegistry({ tools: [tool] })
        .createRun()
        .call("loop", {});
      expect(errorOf(result)).toMatchObject({ code: "tool_failed" });
      expect(errorOf(result).message).toContain(`${MAX_THENABLE_DEPTH} levels`);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it("for an object whose `then` getter hides the first time and loops after: the call still ends", async () => {
    // Resolving a promise with it would read `then` once more and adopt the self-resolving function.
    const tricky = () => {
      let reads = 0;
      const value: Record<string, unknown> = { data: 1 };
      // biome-ignore lint/suspicious/noThenProperty: the hostile then getter is the point of the test.
      Object.defineProperty(value, "then", {
        enumerable: false,
        get: () => (++reads === 1 ? undefined : (resolve: (v: unknown) => void) => resolve(value)),
      });
      return value;
    };
    const tool = defineTool({ name: "tricky", description: "T.", inputSchema: z.object({}), handler: () => tricky() as never });
    // On the old code this never settles (the test times out, the event loop starved).
    const result = await createRegistry({ tools: [tool] })
      .createRun()
      .call("tricky", {});
    expect(result).toMatchObject({ ok: true, output: { data: 1 } });
  });

  it("follows nested thenables to their value, and only a thenable's first answer counts (control)", async () => {
    const thenable = (settle: (resolve: (v: unknown) => void, reject: (e: unknown) => void) => void) =>
      // biome-ignore lint/suspicious/noThenProperty: thenables are the point of the test.
      ({ then: settle });
    const nested = thenable((resolve) => resolve(thenable((inner) => inner(Promise.resolve("deep")))));
    const twice = thenable((resolve, reject) => {
      resolve("first");
      resolve("second");
      reject(new Error("late"));
    });
    const tools = [
      defineTool({ name: "nested", description: "N.", inputSchema: z.object({}), handler: () => nested as never }),
      defineTool({ name: "twice", description: "T.", inputSchema: z.object({}), handler: () => twice as never }),
    ];
    const run = createRegistry({ tools }).createRun();
    expect(await run.call("nested", {})).toMatchObject({ ok: true, output: "deep" });
    expect(await run.call("twice", {})).toMatchObject({ ok: true, output: "first" });
  });

  it("a host whose onListenerError throws still gets the call's own result; the hook's error comes on a later tick", async () => {
    const tool = defineTool({ name: "t", description: "T.", inputSchema: z.object({}), handler: () => "ok" });
    const registry = createRegistry({
      tools: [tool],
      onListenerError: (error) => {
        throw error;
      },
    });
    registry.events.on("tool.error", () => {
      throw new Error("listener");
    });
    let result: ToolCallResult | undefined;
    const caught = await collectUncaught(async () => {
      result = await registry.createRun().call("missing", {});
    });
    // Before, the hook's throw escaped emit() and the result became internal_error.
    expect(result).toMatchObject({ ok: false, error: { code: "unknown_tool" } });
    expect(caught.map((error) => (error as Error).message)).toEqual(["listener"]);
  });

  it("gives each call its own signal: 50 concurrent calls add no listener to the run's", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.name);
    process.on("warning", onWarning);
    const signals: AbortSignal[] = [];
    const slow = defineTool({
      name: "slow",
      description: "Waits for its signal.",
      inputSchema: z.object({}),
      handler: (_input, ctx) =>
        new Promise<string>((resolve) => {
          signals.push(ctx.signal);
          ctx.signal.addEventListener("abort", () => resolve("stopped"));
        }),
    });
    const run = createRegistry({ tools: [slow] }).createRun();
    const calls = Array.from({ length: 50 }, () => run.call("slow", {}));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(new Set(signals).size).toBe(50);
    await run.close();
    const results = await Promise.all(calls);
    expect(results.every((result) => !result.ok && result.error.code === "aborted")).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    process.off("warning", onWarning);
    expect(warnings).not.toContain("MaxListenersExceededWarning");
  });
});

describe("validation never amplifies and never echoes (issue 15.2)", () => {
  const secret = "SECRET-VALUE-1234567890";
  const schemas = {
    zod4: z.object({ items: z.array(z.number()), mode: z.enum(["a", "b"]) }).strict(),
    zod3: z3.object({ items: z3.array(z3.number()), mode: z3.enum(["a", "b"]) }).strict(),
    json: {
      type: "object",
      properties: { items: { type: "array", items: { type: "number" } }, mode: { enum: ["a", "b"] } },
      additionalProperties: false,
    } as JsonObjectSchema,
  };
  for (const [kind, inputSchema] of Object.entries(schemas)) {
    it(`caps issues in count and bytes (${kind}), and quotes no value sent`, async () => {
      const tool = defineTool({ name: "t", description: "T.", inputSchema: inputSchema as never, handler: () => "ok" });
      const run = createRegistry({ tools: [tool] }).createRun();
      const items = Array.from({ length: 100_000 }, () => "x");
      const args = JSON.stringify({ items, mode: secret, [secret]: 1 });
      expect(args.length).toBeLessThan(4 * 1024 * 1024);
      // CPU time, not wall time: on a shared, loaded machine the wall clock also counts the time
      // this process waited for a core. The old code spent 8-19 s of CPU and answered 80-150 MB.
      const started = process.cpuUsage();
      const error = errorOf(await run.call("t", args));
      const spent = process.cpuUsage(started);
      expect((spent.user + spent.system) / 1000).toBeLessThan(10_000);
      expect(error.code).toBe("invalid_input");
      const text = formatToolResult({ ok: false, tool: "t", callId: "c", error });
      expect(text.length).toBeLessThan(16 * 1024);
      expect(error.issues?.length).toBeLessThanOrEqual(21);
      // small input: every kind of issue, none quoting the value
      const small = errorOf(await run.call("t", { items: [1], mode: secret, [`k${secret}`]: 1 }));
      expect(JSON.stringify(small)).not.toContain(`'${secret}'`);
      expect(JSON.stringify(small)).not.toMatch(/received '/);
      // A hang bound, not the claim (the CPU time above: 0.09-0.78 CPU-s per kind at load 16):
      // the default 20 s of wall ended zod3's in a batch of heavy files at load 20, this process
      // waiting for a core.
    }, 120_000);
  }

  it("bounds object arguments by their JSON size like strings", async () => {
    const tool = defineTool({ name: "t", description: "T.", inputSchema: z.object({ text: z.string() }), handler: () => "ok" });
    const run = createRegistry({ tools: [tool] }).createRun({ maxInputLength: 1000 });
    expect(errorOf(await run.call("t", { text: "x".repeat(2000) })).code).toBe("input_too_large");
    expect((await run.call("t", { text: "x".repeat(100) })).ok).toBe(true);
  });

  it("a small cyclic, proxied or function-holding object is invalid_input naming the cause, not input_too_large", async () => {
    let handled = 0;
    const tool = defineTool({
      name: "t",
      description: "T.",
      inputSchema: z.object({ text: z.string() }),
      handler: () => {
        handled++;
        return "ok";
      },
    });
    const run = createRegistry({ tools: [tool] }).createRun({ maxInputLength: 1000 });
    const cyclic: Record<string, unknown> = { text: "x" };
    cyclic.self = cyclic;
    const throwingProxy = new Proxy(
      { text: "x" },
      {
        ownKeys: () => {
          throw new Error("trap");
        },
      },
    );
    const revocable = Proxy.revocable({ text: "x" }, {});
    revocable.revoke();
    for (const [args, cause] of [
      [cyclic, "contains itself (a cycle)"],
      [{ text: "x", nested: [{ back: cyclic }] }, "contains itself (a cycle)"],
      [throwingProxy, "reading them threw"],
      [revocable.proxy, "reading them threw"],
      [{ text: "x", f: () => 1 }, "a function, a symbol or a BigInt"],
      [{ text: "x", n: { toJSON: () => 1n } }, "a function, a symbol or a BigInt"],
    ] as const) {
      const error = errorOf(await run.call("t", args));
      expect(error.code, cause).toBe("invalid_input");
      expect(error.message).toContain(cause);
      expect(error.message).not.toMatch(/larger|at most/);
    }
    expect(handled).toBe(0);
    // Still input_too_large when it is the size.
    expect(errorOf(await run.call("t", { text: "x".repeat(2000) })).code).toBe("input_too_large");
    // Controls: the same values without the flaw are taken, a proxy that answers plainly too.
    expect((await run.call("t", { text: "x", nested: [{ back: { text: "y" } }] })).ok).toBe(true);
    expect((await run.call("t", new Proxy({ text: "x" }, {}))).ok).toBe(true);
    expect(handled).toBe(2);
  });
});

describe("approvals (issue 15.5)", () => {
  const write = defineTool({
    name: "write_it",
    description: "Writes.",
    inputSchema: z.object({}),
    mutating: true,
    handler: () => "written",
  });

  it("registry.close() denies pending approvals and createRun on a closed registry throws", async () => {
    const registry = createRegistry({ tools: [write] });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const pending = run.call("write_it", {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(registry.approvals.pending()).toHaveLength(1);
    await registry.close();
    const result = await pending;
    expect(result.ok).toBe(false);
    expect(registry.approvals.pending()).toHaveLength(0);
    expect(() => registry.createRun()).toThrow(CatalogError);
    expect(errorOf(await run.call("write_it", {})).code).toBe("aborted");
  });

  it("validates approvalTimeoutMs (finite, 1..2^31-1)", () => {
    const registry = createRegistry({ tools: [write] });
    for (const bad of [Number.POSITIVE_INFINITY, 2 ** 31, Number.NaN, -1, 0]) {
      expect(() => registry.createRun({ approvalTimeoutMs: bad })).toThrow(ConfigurationError);
      expect(() => new InMemoryApprovalBroker({ timeoutMs: bad })).toThrow(ConfigurationError);
    }
    expect(registry.createRun({ approvalTimeoutMs: 2 ** 31 - 1 }).id).toBeTruthy();
  });

  it("keeps the event loop alive while a call waits, so the timeout denial happens", async () => {
    const { spawnSync } = await import("node:child_process");
    // The built root when current (test/support/child-entry.ts): its start is 0.34-0.44 CPU-s, the
    // source's under tsx 1.2-1.45 (3 runs each, load 18), which at load 20 ran past the 20 s below
    // (status null): that bound is for a child that never ends, and stays.
    const script = `
      import { createRegistry, defineTool } from ${JSON.stringify(entryUrl("index"))};
      const tool = defineTool({ name: "w", description: "W.", inputSchema: { type: "object" }, mutating: true, handler: () => "x" });
      const run = createRegistry({ tools: [tool] }).createRun({ permissions: { approval: "destructive" }, approvalTimeoutMs: 200 });
      run.call("w", {}).then((r) => { console.log(JSON.stringify(r.error.code)); });
    `;
    const loader = childFormat() === "src" ? ["--import", "tsx"] : [];
    const child = spawnSync(process.execPath, [...loader, "--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    expect(child.stdout.trim()).toBe('"approval_denied"');
  });
});

describe("outputs (issues 15.6 and 15.10)", () => {
  const returning = (value: unknown, extra: object = {}) =>
    defineTool({ name: "out", description: "Out.", inputSchema: z.object({}), handler: () => value, ...extra });

  it("turns BigInt and cycles JSON-safe before reporting ok", async () => {
    const cyclic: Record<string, unknown> = { n: 1n };
    cyclic.self = cyclic;
    const result = await createRegistry({ tools: [returning(cyclic)] })
      .createRun()
      .call("out", {});
    expect(result.ok).toBe(true);
    expect(JSON.parse(formatToolResult(result))).toEqual({ n: "1", self: "[Circular]" });
  });

  it("marks values whose getter or toJSON throws, so formatting never throws", async () => {
    const hostile = Object.defineProperty(
      {
        fine: 1,
        nested: {
          toJSON: () => {
            throw new Error("no");
          },
        },
      },
      "x",
      {
        enumerable: true,
        get() {
          throw new Error("no");
        },
      },
    );
    const result = await createRegistry({ tools: [returning(hostile)] })
      .createRun()
      .call("out", {});
    expect(result.ok).toBe(true);
    expect(JSON.parse(formatToolResult(result))).toEqual({ fine: 1, nested: "[Unserializable]", x: "[Unserializable]" });
  });

  it("reports a structured error for an output that cannot be inspected at all", async () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const result = await createRegistry({ tools: [returning(proxy)] })
      .createRun()
      .call("out", {});
    // Even looking for `then` on it throws: the handler counts as failed, structurally.
    expect(["tool_failed", "invalid_output"]).toContain(errorOf(result).code);
    expect(() => formatToolResult(result)).not.toThrow();
  });

  it("condenses a large object output", async () => {
    const big = { rows: Array.from({ length: 5000 }, (_, i) => ({ i, text: "row".repeat(5) })) };
    const result = await createRegistry({ tools: [returning(big)] })
      .createRun({ condenseThreshold: 2000 })
      .call("out", {});
    expect(result.ok).toBe(true);
    expect(formatToolResult(result).length).toBeLessThan(2400);
    expect(formatToolResult(result)).toMatch(/omitted/);
  });

  it("validates outputs against outputSchema", async () => {
    const outputSchema = z.object({ count: z.number() });
    const bad = await createRegistry({ tools: [returning({ count: "many" }, { outputSchema })] })
      .createRun()
      .call("out", {});
    expect(errorOf(bad).code).toBe("invalid_output");
    const good = await createRegistry({ tools: [returning({ count: 3 }, { outputSchema })] })
      .createRun()
      .call("out", {});
    expect(good.ok).toBe(true);
  });
});

describe("registry memory and API answers (issues 15.7 and 15.8)", () => {
  it("compiles JSON Schemas per registry (two registries may use the same $id)", async () => {
    const tool = (type: string) =>
      defineTool({
        name: "t",
        description: "T.",
        inputSchema: { $id: "https://example.com/same.json", type: "object", properties: { a: { type } } } as JsonObjectSchema,
        handler: () => "ok",
      });
    const first = createRegistry({ tools: [tool("string")] }).createRun();
    const second = createRegistry({ tools: [tool("number")] }).createRun();
    expect((await first.call("t", { a: "x" })).ok).toBe(true);
    expect((await second.call("t", { a: 1 })).ok).toBe(true);
    expect(errorOf(await second.call("t", { a: "x" })).code).toBe("invalid_input");
  });

  it("registry.search() never returns internal keys of run-private tools", () => {
    const registry = createRegistry();
    const weather = defineTool({
      name: "weather",
      description: "Weather forecast.",
      inputSchema: z.object({}),
      tier: "deferred",
      handler: () => "",
    });
    registry.register(weather, { runId: "run-A" });
    for (const hit of registry.search("weather forecast")) expect(hit.name).not.toContain("\u0000");
    expect(registry.search("weather forecast")).toEqual([]);
  });

  it("ToolError.isInstance tells subclasses apart", () => {
    expect(ToolError.isInstance(new ConfigurationError("x", "y"))).toBe(false);
    expect(ToolError.isInstance(new ToolError("x", "y"))).toBe(true);
    expect(CatalogError.isInstance(new ToolDefinitionError("invalid_tool_name", "y"))).toBe(true);
    expect(ConfigurationError.isInstance(new ToolError("x", "y"))).toBe(false);
  });

  it("copies and freezes schemas: mutating the original or a descriptor changes nothing", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } }, required: ["a"] } as Record<string, unknown>;
    const tool = defineTool({ name: "t", description: "T.", inputSchema: schema as JsonObjectSchema, handler: () => "ok" });
    const run = createRegistry({ tools: [tool] }).createRun();
    (schema.properties as Record<string, unknown>).a = { type: "number" };
    (schema.required as string[]).push("b");
    expect((await run.call("t", { a: "x" })).ok).toBe(true);
    const descriptor = run.definitions().find((d) => d.name === "t");
    expect(Object.isFrozen(descriptor?.inputSchema.properties)).toBe(true);
    const required = descriptor?.inputSchema.required as string[];
    expect(() => required.push("c")).toThrow(TypeError);
  });

  it("does not restore an activation for a different tool registered later under the name", () => {
    const make = (description: string) =>
      defineTool({ name: "deploy", description, inputSchema: z.object({}), tier: "deferred", handler: () => "" });
    const first = createRegistry({ tools: [make("Deploy the staging site.")] }).createRun();
    first.activate(["deploy"]);
    const saved = first.toJSON().activation;
    const same = createRegistry({ tools: [make("Deploy the staging site.")] }).createRun({ activation: saved });
    expect(same.isVisible("deploy")).toBe(true);
    const registry = createRegistry();
    const resumed = registry.createRun({ activation: ActivationTracker.fromJSON(JSON.parse(JSON.stringify(saved))) });
    registry.register(make("Delete the production database."));
    expect(resumed.isVisible("deploy")).toBe(false);
    expect(resumed.definitions().map((d) => d.name)).not.toContain("deploy");
    expect(resumed.diagnostics()).toMatchObject([{ kind: "stale_activation", name: "deploy" }]);
  });
});

describe("host mistakes fail at createRun (issue 15.9)", () => {
  it("a workspace that is relative, missing or a file; a misspelled option", () => {
    const registry = createRegistry();
    const dir = mkdtempSync(join(tmpdir(), "ws-"));
    const file = join(dir, "f.txt");
    writeFileSync(file, "x");
    for (const workspace of ["relative/dir", join(dir, "missing"), file]) {
      expect(() => registry.createRun({ permissions: { sandbox: "workspace", workspace } })).toThrow(
        expect.objectContaining({ code: "invalid_permission_config", data: { field: "permissions.workspace" } }),
      );
    }
    expect(registry.createRun({ permissions: { sandbox: "workspace", workspace: dir } }).permissions.workspace).toBe(dir);
    expect(() => registry.createRun({ sandbx: "workspace" } as never)).toThrow(
      expect.objectContaining({ code: "unknown_option", data: { field: "sandbx", suggestions: expect.any(Array) } }),
    );
    expect(() => registry.createRun({ premissions: {} } as never)).toThrow(/did you mean "permissions"/);
    // Inside permissions too: a misspelled field would leave the sandbox or the approval off.
    for (const [field, closest] of [
      ["sandbx", "sandbox"],
      ["aproval", "approval"],
      ["workspce", "workspace"],
    ] as const) {
      expect(() => registry.createRun({ permissions: { [field]: "workspace", workspace: dir } } as never)).toThrow(
        expect.objectContaining({ code: "invalid_permission_config", data: { field: `permissions.${field}` } }),
      );
      expect(() => registry.createRun({ permissions: { [field]: "workspace", workspace: dir } } as never)).toThrow(
        new RegExp(`did you mean "${closest}"`),
      );
    }
  });

  it("reports allowedTools naming unknown tools, with the closest names", () => {
    const echo = defineTool({ name: "echo", description: "Echo.", inputSchema: z.object({}), handler: () => "" });
    const registry = createRegistry({ tools: [echo] });
    const seen: string[] = [];
    registry.events.on("run.diagnostic", (event) => seen.push(event.name));
    const run = registry.createRun({ allowedTools: ["ecoh", "echo"] });
    expect(run.diagnostics()).toMatchObject([{ kind: "unknown_allowed_tool", name: "ecoh", suggestions: ["echo"] }]);
    expect(seen).toEqual(["ecoh"]);
  });
});
