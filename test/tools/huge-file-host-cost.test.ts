/**
 * A command can make a 1 TiB sparse file in an instant (`truncate -s 1T`): no host-side file tool
 * may then cost time in proportion to the file's size beyond what it returns or must check
 * (red team round 18). Real sparse files, real processes; each call's host CPU is measured
 * (`process.cpuUsage`: every thread of the process, the thread pool's reads included, and the CPU
 * of the children it reaped meanwhile, test/support/process-tree-cpu.ts).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { appendFile, mkdtemp, readFile, stat, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { EDIT_MAX_BYTES } from "../../src/tools/fs/edit-size-limit.js";
import { type BackgroundLoop, startBackgroundLoop } from "../support/background-loop.js";
import { treeCpu, treeCpuSince } from "../support/process-tree-cpu.js";
import { removeTree } from "../support/remove-tree.js";

const TIB = 2 ** 40;
const GIB = 2 ** 30;
/** Host CPU one call may use on a huge file (the old code: about 600 ms per GiB hashed). */
const CPU_BOUND_MS = 1_000;
/**
 * Wall time, a hang's bound only: the cost is the CPU bound's claim. At 5 s, a refused read with
 * tens of milliseconds of CPU failed at load 35 (2 cores, 8 busy loops beside); the children's
 * CPU, which only the wall time saw before, now counts in the CPU bound.
 */
const WALL_BOUND_MS = 30_000;

let workspace: string;
let background: BackgroundLoop | undefined;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-huge-"));
});
afterEach(async () => {
  await background?.stop();
  background = undefined;
  await removeTree(workspace);
});

function runIn(root = workspace): Run {
  return createRegistry({
    tools: [...createFileTools().filter((tool) => tool.name !== "grep"), createGrepTool({ engine: "javascript" })],
  }).createRun({
    profile: "full",
    permissions: { sandbox: "unrestricted", workspace: root },
  });
}

/** A tool call with its host CPU (this process's and its children's) and wall time. */
async function timed(run: Run, tool: string, input: Record<string, unknown>) {
  const cpu = treeCpu();
  const started = performance.now();
  const result = await run.call(tool, input);
  return { result, cpuMs: treeCpuSince(cpu).totalMs, wallMs: performance.now() - started };
}

function bounded(call: Awaited<ReturnType<typeof timed>>, what: string): ToolCallResult {
  const shown = JSON.stringify(call.result).slice(0, 400);
  expect(call.cpuMs, `${what} host CPU: ${shown}`).toBeLessThan(CPU_BOUND_MS);
  expect(call.wallMs, `${what} wall time: ${shown}`).toBeLessThan(WALL_BOUND_MS);
  return call.result;
}

const output = (result: ToolCallResult) => {
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return String(result.output);
};
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

/** 20,000 lines of text (about 240 KB: more than the 8 KiB a binary check looks at). */
const TEXT = Array.from({ length: 20_000 }, (_, index) => `text line ${index + 1}`).join("\n");

/** `name`: the text, then a hole to `size` bytes, then `tail` (when given) after the hole. */
async function sparse(name: string, size: number, tail?: string): Promise<string> {
  const file = path.join(workspace, name);
  await writeFile(file, `${TEXT}\n`);
  await truncate(file, size);
  if (tail !== undefined) await appendFile(file, tail);
  return file;
}

const versionIn = (text: string) => /· (v_[0-9a-f]{16}) ·/.exec(text)?.[1];

describe("a 1 TiB sparse file whose first bytes are text", () => {
  it("read answers its window within 1 s of host CPU; an offset past the first 64 MiB is refused, as fast", async () => {
    const file = await sparse("huge.txt", TIB);
    // Control: the file is 1 TiB long.
    expect((await stat(file)).size).toBe(TIB);
    const run = runIn();
    const first = output(bounded(await timed(run, "read", { path: "huge.txt", limit: 3 }), "read"));
    expect(first).toContain("text line 1\n");
    expect(first).toContain("text line 3");
    expect(first).toContain("not editable");
    expect(first).toContain("[more: continue with offset=4]");
    const late = output(bounded(await timed(run, "read", { path: "huge.txt", offset: 19_999, limit: 2 }), "late read"));
    expect(late).toContain("text line 19999");
    // Line 20,001 is the hole itself: a line of 1 TiB of NULs, shown cut at max_bytes.
    const hole = bounded(await timed(run, "read", { path: "huge.txt", offset: 20_001, limit: 1 }), "hole read");
    expect(code(hole)).toBe("ok");
    const past = bounded(await timed(run, "read", { path: "huge.txt", offset: 20_002 }), "read past 64 MiB");
    expect(code(past)).toBe("too_large");
  }, 60_000);

  it("file_inspect previews it within 1 s of host CPU, lines not counted", async () => {
    await sparse("huge.txt", TIB);
    const inspected = output(bounded(await timed(runIn(), "file_inspect", { path: "huge.txt" }), "file_inspect"));
    expect(inspected).toContain(`size: ${TIB} bytes`);
    expect(inspected).toContain("lines: not counted");
    expect(inspected).toContain("text line 20");
  }, 60_000);

  it("edit, replace, apply_patch and write refuse it on its size (too_large, naming the limit), within 1 s", async () => {
    await sparse("huge.txt", TIB);
    const run = runIn();
    const version = versionIn(output(await run.call("read", { path: "huge.txt", limit: 1 })));
    expect(version).toBeDefined();
    const calls: [string, Record<string, unknown>][] = [
      ["edit", { path: "huge.txt", old_text: "text line 5\n", new_text: "changed\n" }],
      ["edit", { path: "huge.txt", old_text: "text line 5\n", new_text: "changed\n", expected_version: version }],
      ["replace", { path: "huge.txt", find: "text line 5\n", replace: "changed\n" }],
      ["apply_patch", { patch: "*** Begin Patch\n*** Update File: huge.txt\n-text line 5\n+changed\n*** End Patch" }],
      ["write", { path: "huge.txt", content: "small now\n" }],
    ];
    for (const [tool, input] of calls) {
      const result = bounded(await timed(run, tool, input), tool);
      expect(code(result), tool).toBe("too_large");
      expect(!result.ok && result.error.message, tool).toContain("64 MiB");
    }
    // Nothing was changed.
    expect((await stat(path.join(workspace, "huge.txt"))).size).toBe(TIB);
  }, 60_000);

  it("the grep JavaScript engine answers within 1 s of host CPU (a NUL ends the file's search)", async () => {
    await sparse("huge.txt", TIB);
    await writeFile(path.join(workspace, "small.txt"), "text line 7 elsewhere\n");
    const found = output(bounded(await timed(runIn(), "grep", { pattern: "text line 7\\b" }), "grep"));
    expect(found).toContain("small.txt");
  }, 60_000);
});

describe("a 1 GiB file: text, a hole, text at the end", () => {
  it("read, file_inspect and edit answer within 1 s of host CPU each", async () => {
    await sparse("gib.txt", GIB, "\ntail marker\n");
    const run = runIn();
    expect(output(bounded(await timed(run, "read", { path: "gib.txt", limit: 5 }), "read"))).toContain("text line 5");
    expect(output(bounded(await timed(run, "file_inspect", { path: "gib.txt" }), "file_inspect"))).toContain("text line 1");
    const far = bounded(await timed(run, "read", { path: "gib.txt", offset: 20_003 }), "read of the tail");
    expect(code(far)).toBe("too_large");
    expect(!far.ok && far.error.hint).toContain("tail");
    const edited = bounded(
      await timed(run, "edit", { path: "gib.txt", old_text: "tail marker", new_text: "x" }),
      "edit of the tail",
    );
    expect(code(edited)).toBe("too_large");
  }, 60_000);

  it("undo of an edit whose file a command then made 1 GiB is refused within 1 s of host CPU", async () => {
    const file = path.join(workspace, "grown.txt");
    await writeFile(file, "one\n");
    const run = runIn();
    output(await run.call("edit", { path: "grown.txt", old_text: "one", new_text: "two" }));
    await truncate(file, GIB);
    const undone = bounded(await timed(run, "undo", {}), "undo");
    expect(undone.ok).toBe(false);
    expect((await stat(file)).size).toBe(GIB);
  }, 60_000);
});

describe("a file growing while it is read", () => {
  it("read and file_inspect answer within the bounds while a process grows it by 256 MiB steps", async () => {
    const file = await sparse("growing.txt", 5 * 1024 * 1024);
    // -c: a truncate never creates the file again once the test removed it.
    background = startBackgroundLoop(`while :; do truncate -c -s +256M ${JSON.stringify(file)}; done`);
    // Control: it grows (polled: at load 15-20 the shell's first truncate took over 200 ms to come).
    const before = (await stat(file)).size;
    const growBy = Date.now() + 10_000;
    while ((await stat(file)).size <= before && Date.now() < growBy) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await stat(file)).size).toBeGreaterThan(before);
    for (let round = 0; round < 3; round++) {
      // A run per round: at load 35-40 the loop may not run between two rounds, and a run that read
      // the same lines of an unchanged file answers "unchanged since your last read" (CI).
      const run = runIn();
      expect(output(bounded(await timed(run, "read", { path: "growing.txt", limit: 2 }), "read"))).toContain("text line 2");
      expect(output(bounded(await timed(run, "file_inspect", { path: "growing.txt" }), "inspect"))).toContain("text line 1");
    }
  }, 60_000);
});

describe("positive controls: files within the limit are hashed and edit-checked", () => {
  const hashOf = (bytes: Buffer) => `v_${createHash("sha256").update(bytes).digest("hex").slice(0, 16)}`;

  it("a file of exactly the limit: its version is its content hash, and it is edited; one byte more is refused", async () => {
    const file = await sparse("limit.txt", EDIT_MAX_BYTES);
    const run = runIn();
    const read = output(await run.call("read", { path: "limit.txt", limit: 1 }));
    expect(versionIn(read)).toBe(hashOf(await readFile(file)));
    const edited = await run.call("edit", {
      path: "limit.txt",
      old_text: "text line 9\n",
      new_text: "text line 9!\n",
      expected_version: versionIn(read),
    });
    expect(code(edited)).toBe("ok");
    await truncate(file, EDIT_MAX_BYTES + 1);
    const refused = await run.call("edit", { path: "limit.txt", old_text: "text line 8\n", new_text: "x\n" });
    expect(code(refused)).toBe("too_large");
  }, 60_000);

  it("a streamed file's version changes when a byte the read did not show changes (same size)", async () => {
    const file = await sparse("streamed.txt", 5 * 1024 * 1024, "\nlast line\n");
    const run = runIn();
    const first = versionIn(output(await run.call("read", { path: "streamed.txt", limit: 1 })));
    const bytes = await readFile(file);
    bytes[bytes.length - 3] = "X".charCodeAt(0);
    await writeFile(file, bytes);
    const second = versionIn(output(await run.call("read", { path: "streamed.txt", limit: 1 })));
    expect(second).toBe(hashOf(bytes));
    expect(second).not.toBe(first);
    const stale = await run.call("edit", {
      path: "streamed.txt",
      old_text: "text line 1\n",
      new_text: "x\n",
      expected_version: first,
    });
    expect(code(stale)).toBe("version_conflict");
  }, 60_000);

  it("an over-limit file's identity version changes when its shown lines change in place (same size)", async () => {
    const file = await sparse("huge.txt", TIB);
    const run = runIn();
    const first = versionIn(output(await run.call("read", { path: "huge.txt", limit: 1 })));
    execFileSync("sh", ["-c", `printf 'TEXT' | dd of=${JSON.stringify(file)} conv=notrunc status=none`]);
    const again = output(await run.call("read", { path: "huge.txt", limit: 1 }));
    expect(again).toContain("TEXT line 1");
    expect(versionIn(again)).not.toBe(first);
    expect((await stat(file)).size).toBe(TIB);
  }, 60_000);

  it("property: for any file an edit can touch, a changed content changes the version and a stale edit is refused", async () => {
    const run = runIn();
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 0x7e }),
        async (text, at, byte) => {
          const file = path.join(workspace, "p.txt");
          const content = Buffer.from(`${text}\nanchor\n`);
          await writeFile(file, content);
          const seen = versionIn(output(await run.call("read", { path: "p.txt" })));
          const changed = Buffer.from(content);
          const index = at % changed.length;
          fc.pre(changed[index] !== byte && changed[index] !== 10 && byte !== 10);
          changed[index] = byte;
          await writeFile(file, changed);
          const now = versionIn(output(await run.call("read", { path: "p.txt" })));
          expect(now).not.toBe(seen);
          const stale = await run.call("write", { path: "p.txt", content: "x\n", expected_version: seen });
          expect(code(stale)).toBe("version_conflict");
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});
