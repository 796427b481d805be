/**
 * Run ids: random version 4 UUIDs, from the kernel's random device where there is one (node:crypto
 * costs a new process about 3 ms of CPU to load), else from node's CSPRNG.
 */
import { createRegistry } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { randomRunId, uuidFromBytes } from "../src/run/random-run-id.js";

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("run ids", () => {
  it("are version 4 UUIDs, none repeated over many runs (past the device pool's refills)", () => {
    const ids = Array.from({ length: 2_000 }, () => randomRunId());
    expect(ids.every((id) => V4.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const registry = createRegistry({ tools: [] });
    const runs = Array.from({ length: 100 }, () => registry.createRun().id);
    expect(runs.every((id) => V4.test(id))).toBe(true);
    expect(new Set(runs).size).toBe(runs.length);
  });

  it("set the version and variant bits and keep the other 122 bits as given", () => {
    expect(uuidFromBytes(new Uint8Array(16).fill(0xff))).toBe("ffffffff-ffff-4fff-bfff-ffffffffffff");
    expect(uuidFromBytes(new Uint8Array(16))).toBe("00000000-0000-4000-8000-000000000000");
    const bytes = Uint8Array.from({ length: 16 }, (_, index) => index * 17);
    expect(uuidFromBytes(bytes)).toBe("00112233-4455-4677-8899-aabbccddeeff");
    // The bytes given are not changed.
    expect(bytes[6]).toBe(0x66);
  });
});
