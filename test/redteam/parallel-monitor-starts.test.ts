/**
 * Red team round 13: monitor's limit of running processes per run against parallel starts of one
 * step. The count was taken before the awaits that resolve the directory and the sandbox, and
 * the process registered after them: every start of the step saw the same count, and all ran.
 */
import { monitorToolGroup } from "agent-tool-catalog/host";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { hostRun, temporaryDirectory } from "../host/support/host-test-kit.js";

let root: { path: string; remove(): Promise<void> };
beforeEach(async () => {
  root = await temporaryDirectory("redteam-monitor-");
});
afterEach(() => root.remove());

describe("monitor start, in parallel", () => {
  it("5 starts against a limit of 2 run 2; 3 are too_many_monitors", async () => {
    const { run } = hostRun([monitorToolGroup({ maxProcesses: 2 })], {
      permissions: { sandbox: "unrestricted", workspace: root.path },
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 5 }, () => run.call("monitor", { action: "start", command: "sleep 30" })),
      );
      const codes = results.map((result) => (result.ok ? "ok" : result.error.code)).sort();
      expect(codes).toEqual(["ok", "ok", "too_many_monitors", "too_many_monitors", "too_many_monitors"]);
    } finally {
      await run.close();
    }
  });
});
