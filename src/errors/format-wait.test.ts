import { describe, expect, it } from "vitest";
import { formatWait } from "./format-wait.js";

describe("formatWait", () => {
  it("says milliseconds under a second and tenths of a second above, rounding before it chooses", () => {
    expect(formatWait(150)).toBe("150 ms");
    expect(formatWait(999.4)).toBe("999 ms");
    // Review finding: 999.6 ms was said "1000 ms".
    expect(formatWait(999.6)).toBe("1 s");
    expect(formatWait(1000)).toBe("1 s");
    expect(formatWait(1600)).toBe("1.6 s");
    expect(formatWait(30_000)).toBe("30 s");
  });
});
