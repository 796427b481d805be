/**
 * A directory of 100,000 entries: `ls` and `glob` answer bounded (their first 500), and the host's
 * event loop is never held for long. A confined listing read every file's size through a promise
 * each, all at once, and sorted names by encoding both on every comparison: the event loop was
 * held for 4-6 s (load 12 on 2 cores). Control: a timer ticking every 5 ms measures the longest
 * hold; a busy loop of 3 s does show up in it.
 */

import { closeSync, openSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGlobTool, createLsTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ENTRIES = 100_000;
/** The longest hold allowed: far over a slice (8 ms) to leave room for a loaded machine. */
const MAX_HOLD_MS = 1_500;

/** Runs `work` and returns the longest gap between ticks of a 5 ms timer meanwhile. */
async function longestHold<T>(work: () => Promise<T>): Promise<{ value: T; hold: number }> {
  let hold = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    hold = Math.max(hold, now - last);
    last = now;
  }, 5);
  try {
    const value = await work();
    hold = Math.max(hold, performance.now() - last);
    return { value, hold };
  } finally {
    clearInterval(timer);
  }
}

describe("listing a directory of 100,000 entries", () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-huge-dir-"));
    for (let index = 0; index < ENTRIES; index++)
      closeSync(openSync(path.join(workspace, `f${String(index).padStart(6, "0")}.txt`), "w"));
  }, 120_000);
  afterAll(() => {
    // Synchronously: a promise per entry (fs/promises' rm) cost twice the CPU for 100,000 files.
    rmSync(workspace, { recursive: true, force: true });
  });

  it("control: the timer sees a 3 s hold", async () => {
    const { hold } = await longestHold(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const until = performance.now() + 3_000;
      while (performance.now() < until) {}
    });
    expect(hold).toBeGreaterThan(2_500);
  });

  for (const sandbox of ["workspace", "unrestricted"] as const) {
    it(`ls and glob (${sandbox}) answer their first 500 without holding the event loop`, async () => {
      const run = createRegistry({ tools: [createLsTool(), createGlobTool()] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox },
      });
      const ls = await longestHold(() => run.call("ls", {}));
      expect(ls.value.ok).toBe(true);
      const listed = String(ls.value.ok && ls.value.output).split("\n");
      expect(listed[0]).toContain("500 entries (first 500");
      expect(listed[1]).toMatch(/^f000000\.txt {2}0$/);
      expect(listed).toHaveLength(501);
      expect(ls.hold).toBeLessThan(MAX_HOLD_MS);
      const glob = await longestHold(() => run.call("glob", { pattern: "*.txt" }));
      expect(glob.value.ok).toBe(true);
      expect(String(glob.value.ok && glob.value.output).split("\n")[1]).toBe("f000000.txt");
      expect(glob.hold).toBeLessThan(MAX_HOLD_MS);
    }, 120_000);
  }
});
