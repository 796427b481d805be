import { describe, expect, it } from "vitest";
import { createRegistry } from "../registry/registry.js";
import { defineTool } from "../tool/define-tool.js";
import { toolIdentity } from "../tool/tool-identity.js";
import { ActivationTracker } from "./activation-tracker.js";

describe("ActivationTracker", () => {
  it("activates idempotently and keeps the order of first activation", () => {
    const tracker = new ActivationTracker();
    expect(tracker.activate("b")).toBe(true);
    expect(tracker.activate("a")).toBe(true);
    const version = tracker.version;
    expect(tracker.activate("b")).toBe(false);
    expect(tracker.version).toBe(version);
    expect(tracker.list()).toEqual(["b", "a"]);
    expect(tracker.size).toBe(2);
  });

  it("round-trips through JSON", () => {
    const tracker = new ActivationTracker(["x", "y"]);
    const restored = ActivationTracker.fromJSON(JSON.parse(JSON.stringify(tracker)));
    expect(restored.list()).toEqual(["x", "y"]);
    expect(restored.isActive("x")).toBe(true);
    expect(restored.deactivate("x")).toBe(true);
    expect(restored.deactivate("x")).toBe(false);
    expect(restored.isActive("x")).toBe(false);
  });

  it("computes an identity given as a function once, only when it is needed", () => {
    const tracker = new ActivationTracker();
    let computed = 0;
    tracker.activate("deploy", () => {
      computed++;
      return "0123456789abcdef";
    });
    tracker.activate("plain", "fedcba9876543210");
    tracker.activate("never");
    // Activating and asking which names are active never hash the tool.
    expect(tracker.isActive("deploy")).toBe(true);
    expect(computed).toBe(0);
    expect(tracker.toJSON()).toEqual({
      version: 1,
      activated: ["deploy", "plain", "never"],
      identities: { deploy: "0123456789abcdef", plain: "fedcba9876543210" },
    });
    expect(tracker.identityOf("deploy")).toBe("0123456789abcdef");
    expect(computed).toBe(1);
    expect(ActivationTracker.fromJSON(JSON.parse(JSON.stringify(tracker))).identityOf("deploy")).toBe("0123456789abcdef");
  });

  it("a run records the identity of the tool it activated, as a saved state shows it", () => {
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "deploy",
          description: "Deploy.",
          tier: "deferred",
          inputSchema: { type: "object" },
          handler: () => "ok",
        }),
      ],
    });
    const run = registry.createRun();
    run.activate(["deploy"]);
    const descriptor = registry.get("deploy");
    if (descriptor === undefined) throw new Error("deploy is registered");
    expect(run.activation.toJSON().identities).toEqual({ deploy: toolIdentity(descriptor) });
  });

  it.each([null, 3, {}, { version: 2, activated: [] }, { version: 1, activated: [1] }])("refuses the state %j", (state) => {
    expect(() => ActivationTracker.fromJSON(state)).toThrowError(expect.objectContaining({ code: "invalid_activation_state" }));
  });
});
