/**
 * `createRun`'s size limits and every approval timeout are checked by the same rule as every other
 * numeric option (`checkNumberOption`), keeping their codes (`invalid_option`,
 * `invalid_approval_timeout`): the message names the factory, the option, the accepted range and
 * the value, and `data.value` carries the value. Before, two copies of the rule said less
 * ("maxInputLength must be a number above 0", without the factory or that Infinity is allowed).
 */
import { ConfigurationError, createRegistry, InMemoryApprovalBroker } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";

function thrown(give: () => unknown): ConfigurationError {
  try {
    give();
  } catch (error) {
    if (error instanceof ConfigurationError) return error;
    throw error;
  }
  throw new Error("nothing thrown");
}

describe("one rule, the codes hosts match on kept", () => {
  it("createRun size limits: invalid_option naming factory, range and value", () => {
    const registry = createRegistry();
    for (const field of ["maxInputLength", "condenseThreshold", "maxBinaryBytes", "maxCallsInFlight"]) {
      const error = thrown(() => registry.createRun({ [field]: 0 }));
      expect(error.code).toBe("invalid_option");
      expect(error.message).toBe(`createRun: ${field} must be a number above 0 (or Infinity); got 0.`);
      expect(error.data).toMatchObject({ field, value: "0" });
      // Positive control: Infinity, the documented "no limit".
      expect(() => registry.createRun({ [field]: Number.POSITIVE_INFINITY })).not.toThrow();
    }
  });

  it("approval timeouts: invalid_approval_timeout naming factory, range and value", () => {
    const error = thrown(() => createRegistry().createRun({ approvalTimeoutMs: 2 ** 31 }));
    expect(error.code).toBe("invalid_approval_timeout");
    expect(error.message).toBe(
      "createRun: approvalTimeoutMs must be a whole number at least 1 and at most 2147483647; got 2147483648.",
    );
    const broker = thrown(() => new InMemoryApprovalBroker({ timeoutMs: Number.NaN }));
    expect(broker.code).toBe("invalid_approval_timeout");
    expect(broker.message).toBe(
      "InMemoryApprovalBroker: timeoutMs must be a whole number at least 1 and at most 2147483647; got NaN.",
    );
    expect(() => new InMemoryApprovalBroker({ timeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
