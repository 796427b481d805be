/**
 * Red team round 39: `run.call`'s options are the host's, read once. With a run store, `call`
 * read `options.signal` a second time, outside the guard, for the save that follows the call:
 * `null` options, a getter or proxy that throws, or a signal that is fine on the first read and
 * hostile on the second rejected the call (after the tool had run, for the last two), where the
 * README promises "`run.call` never rejects ... call options that are not an object, whose
 * getters throw, or whose `signal` is not an AbortSignal".
 */
import { createRegistry, defineTool, InMemoryRunStore, type Run } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

function setup(withStore: boolean): { run: Run; ran: () => number; store: InMemoryRunStore } {
  let count = 0;
  const echo = defineTool({
    name: "echo",
    description: "Echoes.",
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    handler: (input: { text?: string }) => {
      count++;
      return input.text ?? "";
    },
  });
  const store = new InMemoryRunStore();
  const run = createRegistry({ tools: [echo] }).createRun(withStore ? { store, storeSaveWaitMs: 2000 } : {});
  return { run, ran: () => count, store };
}

/** Options whose `field` reads `first` once, then throws (or answers `later`) on every other read. */
function secondReadDiffers(field: string, first: unknown, later?: () => unknown): object {
  let reads = 0;
  return Object.defineProperty({}, field, {
    enumerable: true,
    get() {
      if (reads++ === 0) return first;
      if (later !== undefined) return later();
      throw new Error(`second read of ${field}`);
    },
  });
}

/** A signal-like object that passes the shape check once and throws at everything after. */
function signalTurningHostile(): object {
  let aborted = 0;
  return {
    get aborted() {
      if (aborted++ > 0) throw new Error("aborted read again");
      return false;
    },
    addEventListener() {
      throw new Error("addEventListener");
    },
    removeEventListener() {
      throw new Error("removeEventListener");
    },
  };
}

const revoked = (() => {
  const pair = Proxy.revocable({}, {});
  pair.revoke();
  return pair.proxy;
})();

const hostileOptions: [string, () => unknown][] = [
  ["null", () => null],
  [
    "a proxy whose every read throws",
    () =>
      new Proxy(
        {},
        {
          get: () => {
            throw new Error("get");
          },
        },
      ),
  ],
  ["a revoked proxy", () => revoked],
  ["a signal getter that throws on its second read", () => secondReadDiffers("signal", undefined)],
  ["a signal that is undefined, then a throwing signal-like", () => secondReadDiffers("signal", undefined, signalTurningHostile)],
  ["a signal-like that turns hostile after the shape check", () => ({ signal: signalTurningHostile() })],
  [
    "a signal-like whose removeEventListener throws (the call ran)",
    () => ({
      signal: {
        aborted: false,
        addEventListener() {},
        removeEventListener() {
          throw new Error("removeEventListener");
        },
      },
    }),
  ],
];

describe("run.call with hostile call options resolves, with or without a run store", () => {
  for (const withStore of [false, true]) {
    for (const [label, make] of hostileOptions) {
      it(`${withStore ? "with" : "without"} a store: ${label}`, async () => {
        const { run, ran } = setup(withStore);
        const settled = await run.call("echo", { text: "hi" }, make() as never).then(
          (result) => ({ resolved: result }),
          (error: unknown) => ({ rejected: String(error) }),
        );
        expect(settled).not.toHaveProperty("rejected");
        const result = (settled as { resolved: Awaited<ReturnType<Run["call"]>> }).resolved;
        // Either the call ran once and its answer came back, or it did not run and says why.
        if (label.includes("(the call ran)")) expect(result.ok).toBe(true);
        if (result.ok) {
          expect(result.output).toBe("hi");
          expect(ran()).toBe(1);
        } else {
          expect(result.error.code).toBe("internal_error");
          expect(ran()).toBe(0);
        }
      });
    }
  }

  it("control: with a store, a real signal and a callId run the call and save the run", async () => {
    const { run, ran, store } = setup(true);
    const result = await run.call("echo", { text: "hi" }, { signal: new AbortController().signal, callId: "c1" });
    expect(result).toMatchObject({ ok: true, callId: "c1", output: "hi" });
    expect(ran()).toBe(1);
    expect(await store.load(run.id)).toBeDefined();
  });
});
