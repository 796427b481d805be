import { describe, expect, it } from "vitest";
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

  it.each([null, 3, {}, { version: 2, activated: [] }, { version: 1, activated: [1] }])("refuses the state %j", (state) => {
    expect(() => ActivationTracker.fromJSON(state)).toThrowError(expect.objectContaining({ code: "invalid_activation_state" }));
  });
});
