import { describe, expect, it } from "vitest";
import { ConfigurationError } from "../errors/configuration-error.js";
import { untrustedJsonChecker } from "./untrusted-json-checker.js";

describe("untrustedJsonChecker", () => {
  it("gives the issues of a value that does not match, none for one that does", async () => {
    const check = untrustedJsonChecker({ type: "object", properties: { t: { type: "number" } }, required: ["t"] });
    expect(await check({ t: 1 })).toEqual([]);
    expect(await check({ t: "x" })).toEqual([{ path: "t", message: "must be number" }]);
    // Starting the check thread (from source, through tsx) missed the default 20 s at load ~45.
  }, 120_000);

  it("refuses a time limit that is not a positive number, as untrustedJsonSchema does", () => {
    expect(() => untrustedJsonChecker({ type: "object" }, { timeoutMs: 0 })).toThrow(ConfigurationError);
  });
});
