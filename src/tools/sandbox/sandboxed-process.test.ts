import { mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SandboxUnavailableError } from "./sandbox-unavailable-error.js";
import { assertOwnProcessView, unreadableSetupState } from "./sandboxed-process.js";

describe("the gate's refusals", () => {
  it("an unreadable /proc/<pid>/syscall is a structured sandbox error that says what to fix", () => {
    const error = unreadableSetupState(1234);
    expect(error).toBeInstanceOf(SandboxUnavailableError);
    expect(error.code).toBe("sandbox_unavailable");
    expect(error.data).toEqual({ reason: "setup_state_unreadable", path: "/proc/1234/syscall" });
    expect(error.message).toMatch(/nothing ran/);
    expect(error.message).toMatch(/hidepid/);
  });

  it("a /proc whose self is another pid is refused; this process's own /proc passes", () => {
    expect(() => assertOwnProcessView()).not.toThrow();
    // A link to pid 1, as /proc/self is in a /proc that counts this process as pid 1.
    const link = path.join(mkdtempSync(path.join(tmpdir(), "atc-proc-self-")), "self");
    symlinkSync("1", link);
    expect(() => assertOwnProcessView(link)).toThrow(/is pid 1, this process is pid/);
    expect(() => assertOwnProcessView("/nonexistent/self")).toThrow(/unreadable/);
  });
});
