/**
 * Red team round 18: one provider call (the same call id) reaching two processes that continue the
 * same run from Redis (a retried webhook, two replicas) ran in both: the tool's effect happened
 * twice. A host-given call id is now claimed in the run's store while the call runs; the second
 * process is answered `duplicate_call_id` and does not run the tool.
 */
import type { ChildProcessByStdio } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { useRedisServer } from "../support/redis-server.js";

const redisCapability = capability("redis");
const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./fixtures/call-id-runner.mjs", import.meta.url));

/** Runs the fixture: `ready` once its run is open and it waits for the start file, `result` its printed result. */
function runner(url: string, args: readonly string[]): { ready: Promise<void>; result: Promise<ToolCallResult> } {
  const child = spawnNode(script, [url, ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
  }) as ChildProcessByStdio<null, Readable, null>;
  let out = "";
  let ready: () => void = () => undefined;
  const readyLine = `${JSON.stringify({ ready: true })}\n`;
  child.stdout.on("data", (chunk) => {
    out += chunk;
    if (out.startsWith(readyLine)) ready();
  });
  const result = new Promise<ToolCallResult>((resolve, reject) => {
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`the runner exited with ${code}`));
      else if (!out.startsWith(readyLine)) reject(new Error(`the runner printed no ready line: ${out}`));
      else resolve(JSON.parse(out.slice(readyLine.length).trim()) as ToolCallResult);
    });
  });
  return { ready: Promise.race([new Promise<void>((resolve) => (ready = resolve)), result.then(() => undefined)]), result };
}

describe.skipIf(redisCapability.missing)(
  redisCapability.label("one call id sent to two processes continuing one run from Redis"),
  () => {
    const server = useRedisServer();
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), "atc-call-ids-"));
    });
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    async function race(runId: string, ids: readonly [string, string]) {
      const effect = join(dir, `${runId}.effect`);
      const start = join(dir, `${runId}.start`);
      writeFileSync(effect, "");
      const runners = ids.map((id) => runner(server.url, ["ids", runId, id, effect, start, "1500"]));
      // Both processes up and waiting (openRun done): said by each, not assumed after a fixed 4 s.
      await Promise.all(runners.map((one) => one.ready));
      writeFileSync(start, "");
      const settled = await Promise.all(runners.map((one) => one.result));
      return { results: settled, effects: readFileSync(effect, "utf8").trim().split("\n").filter(Boolean) };
    }

    it("runs once: the other process is answered duplicate_call_id and does not run the tool", async () => {
      const { results, effects } = await race("conv-1", ["toolu_01", "toolu_01"]);
      expect(effects).toHaveLength(1);
      const codes = results.map((result) => (result.ok ? "ok" : result.error.code)).sort();
      expect(codes).toEqual(["duplicate_call_id", "ok"]);
      expect(results.find((result) => !result.ok)).toMatchObject({
        callId: "toolu_01",
        error: { message: expect.stringContaining("another process"), hint: expect.stringContaining("own id") },
      });
    }, 60_000);

    it("control: two different call ids both run, and the id is free again once its call ended", async () => {
      const { results, effects } = await race("conv-2", ["toolu_01", "toolu_02"]);
      expect(effects).toHaveLength(2);
      expect(results.every((result) => result.ok)).toBe(true);
      // A provider that numbers calls per response reuses an id in a later turn: it runs again.
      const again = await race("conv-2", ["toolu_01", "toolu_03"]);
      expect(again.results.every((result) => result.ok)).toBe(true);
    }, 60_000);
  },
);
