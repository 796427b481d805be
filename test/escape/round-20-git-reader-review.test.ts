/**
 * Review of round 20 (the route walk of the git tools' confined reader, for a file the kernel found
 * by another path than the one asked for):
 *
 * - The walk bounded links (40) but not names: each link can hold ~810 `d/../` steps, each one a
 *   synchronous `lstat` on the event loop, so a planted `.git/HEAD` or ref made of 39 such links
 *   cost ~350 ms on every open (a plain file: 0.09 ms). A lookup now walks at most 1024 names and
 *   is refused past 1024 (a repository's files are a few dozen names away), alike whether the kernel found something and whatever is outside.
 * - Its fast path compared the descriptor's location with `path.resolve(file)`, which collapses
 *   `..` lexically: `ws/a/../../../ws/f` with `a ->` an existing host directory was read, with a
 *   missing one answered "absent", telling which host directories exist. A path holding `..` is
 *   now walked name by name as the kernel looks it up.
 *
 * Controls: a plain file, a short chain of links inside, a long one under the bound, and a `..`
 * climbing back from a directory link inside the workspace still read.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { confinedReader } from "../../src/git/git-file-reader.js";
import { removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { escapeAttempt } from "./support/escape-attempt.js";

/** One `d/../` step, `d` an existing directory: a name the walk must `lstat`, then a climb. */
const STEP = "d/../";
/** As many steps as fit in a link's text (the kernel reads at most 4095 bytes of it). */
const STEPS_PER_LINK = 810;

describe("escape attempts: review of round 20, the confined reader's route walk", () => {
  let scratch: string;
  let workspace: string;
  let outside: string;
  beforeEach(() => {
    scratch = temporaryDirectory("escape-20-review");
    workspace = path.join(scratch, "workspace");
    outside = path.join(scratch, "outside");
    mkdirSync(path.join(workspace, "d"), { recursive: true });
    mkdirSync(path.join(workspace, "sub"));
    mkdirSync(path.join(outside, "dir"), { recursive: true });
    writeFileSync(path.join(workspace, "f"), "inside\n");
  });
  afterEach(() => removeDirectory(scratch));

  /**
   * What the confined reader answers for `file`, with the CPU time the read took (ms): the walk is
   * synchronous, and CPU time, unlike the clock, does not grow with the other processes of a
   * loaded machine (measured at load 14-17 on 2 cores: 9-29 ms now, 176-333 ms before).
   */
  function read(file: string): { answer: string; ms: number } {
    const reader = confinedReader(workspace);
    const started = process.cpuUsage();
    let answer: string;
    try {
      const bytes = reader.readFile(file);
      answer = bytes === undefined ? "absent" : `read:${bytes.toString().trim()}`;
    } catch (error) {
      const { code, message } = error as { code?: string; message: string };
      answer = `${code}:${message}`;
    }
    const used = process.cpuUsage(started);
    return { answer, ms: (used.user + used.system) / 1000 };
  }

  /** Links `<prefix>1` ... `<prefix><count>`, each `steps` steps then the next; the last one is `last` alone. */
  function chain(prefix: string, count: number, steps: number, last: string): string {
    for (let index = 1; index <= count; index++) {
      const text = index === count ? last : `${STEP.repeat(steps)}${prefix}${index + 1}`;
      symlinkSync(text, path.join(workspace, `${prefix}${index}`));
    }
    return path.join(workspace, `${prefix}1`);
  }

  escapeAttempt(
    "resources",
    "39 links of 810 `d/../` steps each: refused within 50 ms of CPU (was ~180-330 ms a read), alike wherever it ends",
    () => {
      const inside = chain("L", 39, STEPS_PER_LINK, "f");
      const back = path.relative(path.join(outside, "dir"), workspace);
      const present = chain("P", 39, STEPS_PER_LINK, `${path.join(outside, "dir")}/${back}/f`);
      const missing = chain("M", 39, STEPS_PER_LINK, `${path.join(outside, "no-such-dir")}/${back}/f`);
      // The best of three reads: the bound is on the walk, not on a load spike of the machine.
      const fastest = (file: string) => Math.min(...[0, 1, 2].map(() => read(file).ms));
      const refusal = (file: string, name: string) => read(file).answer.replaceAll(name, "<link>");
      expect(fastest(inside)).toBeLessThan(50);
      expect(fastest(present)).toBeLessThan(50);
      expect(fastest(missing)).toBeLessThan(50);
      expect(refusal(inside, "L1")).toMatch(/^repository_outside_workspace:/);
      expect(refusal(present, "P1")).toBe(refusal(inside, "L1"));
      expect(refusal(missing, "M1")).toBe(refusal(inside, "L1"));

      // Controls: a plain file, a short chain inside, and a long one under the bound (3 links,
      // 2 of 200 steps: ~800 names) are read.
      expect(read(path.join(workspace, "f")).answer).toBe("read:inside");
      expect(read(chain("S", 5, 2, "f")).answer).toBe("read:inside");
      expect(read(chain("U", 3, 200, "f")).answer).toBe("read:inside");
    },
    60_000,
  );

  escapeAttempt("paths", "`ws/a/../../../ws/f`, `a` a link to a host directory: refused alike whether it exists", () => {
    // As deep as any directory can be: `..` at `/` stays at `/`, so both climbs end at the root.
    const climb = "../".repeat(workspace.split(path.sep).length + 4);
    const via = (link: string) => `${path.join(workspace, link)}/${climb}${workspace.slice(1)}/f`;
    symlinkSync(path.join(outside, "dir"), path.join(workspace, "a"));
    symlinkSync(path.join(outside, "no-such-dir"), path.join(workspace, "b"));
    const present = read(via("a")).answer.replaceAll("/a/", "/<link>/");
    const missing = read(via("b")).answer.replaceAll("/b/", "/<link>/");
    expect(present).toMatch(/^repository_outside_workspace:/);
    expect(missing).toBe(present);

    // Controls: the same climb from a link to a directory inside, and a plain `sub/../f`, read.
    symlinkSync(path.join(workspace, "sub"), path.join(workspace, "c"));
    expect(read(via("c")).answer).toBe("read:inside");
    expect(read(path.join(workspace, "sub", "..", "f")).answer).toBe("read:inside");
    expect(read(`${workspace}/sub/../f`).answer).toBe("read:inside");
  });
});
