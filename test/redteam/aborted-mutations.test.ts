/**
 * Red team round 9: a mutating file tool aborted by its signal (the host's, `run.close()`,
 * `registry.close()`) came back `aborted` at once, as promised, while its handler went on and
 * made the change anyway: an `apply_patch` of 30 files aborted right after the call started was
 * on disk in full a second later, 59 times out of 60 abort points. The model is told the call was
 * cancelled and writes again (an `append` lands twice); a host that closed the registry still
 * gets writes. Now the change is made only if the signal has not fired by its commit point.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-aborted-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const FILES = 30;

function patchIn(directory: string): string {
  return Array.from(
    { length: FILES },
    (_, i) => `--- a/${directory}/f${i}.txt\n+++ b/${directory}/f${i}.txt\n@@ -1 +1 @@\n-old ${i}\n+new ${i}\n`,
  ).join("");
}

async function seed(directory = "."): Promise<void> {
  await mkdir(path.join(workspace, directory), { recursive: true });
  for (let i = 0; i < FILES; i++) await writeFile(path.join(workspace, directory, `f${i}.txt`), `old ${i}\n`);
}

async function contents(directory = "."): Promise<string[]> {
  return Promise.all(Array.from({ length: FILES }, (_, i) => readFile(path.join(workspace, directory, `f${i}.txt`), "utf8")));
}

const OLD = Array.from({ length: FILES }, (_, i) => `old ${i}\n`);
const NEW = Array.from({ length: FILES }, (_, i) => `new ${i}\n`);

/** Waits long enough for a handler that ignored its signal to have finished (~100-300 ms here). */
const settle = (ms = 1_500) => new Promise((resolve) => setTimeout(resolve, ms));

/** Where the abort is fired: after some turns of the event loop, or after some milliseconds. */
type AbortPoint = { turns: number } | { ms: number };
// All before the commit point of a 30-file patch here (it takes 100 ms or more): past that point
// a change cannot be stopped, and the run, which answers at the abort, may still say `aborted`.
const POINTS: AbortPoint[] = [{ turns: 0 }, { turns: 1 }, { turns: 2 }, { turns: 4 }, { turns: 8 }, { ms: 2 }];
const UNDO_POINTS: AbortPoint[] = [{ turns: 1 }, { turns: 2 }, { ms: 2 }];

async function wait(point: AbortPoint): Promise<void> {
  if ("ms" in point) await new Promise((resolve) => setTimeout(resolve, point.ms));
  else for (let turn = 0; turn < point.turns; turn++) await new Promise((resolve) => setImmediate(resolve));
}

const label = (point: AbortPoint) => ("ms" in point ? `${point.ms}ms` : `t${point.turns}`);

/** The files as the results say they should be: each change reported ok made, no other. */
function expectedFiles(patched: boolean, appended: boolean, edited: boolean): string[] {
  const expected = [...(patched ? NEW : OLD)];
  if (appended) expected[0] = `${expected[0]}appended\n`;
  if (edited) expected[1] = (expected[1] as string).replace("old 1", "edited");
  return expected;
}

const SCOPES: SandboxScope[] = ["unrestricted", "workspace"];

describe("an aborted mutation does not land", () => {
  for (const scope of SCOPES) {
    it(`${scope}: apply_patch, write (append), edit and undo aborted at any early point either land in full before the result or not at all`, async () => {
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      const results = new Map<string, Promise<ToolCallResult>>();
      const aborted = async (key: string, tool: string, args: object, point: AbortPoint) => {
        const controller = new AbortController();
        results.set(key, run.call(tool, args, { signal: controller.signal }));
        await wait(point);
        controller.abort();
        await results.get(key);
      };
      for (const point of POINTS) {
        await seed(label(point));
        await aborted(`patch ${label(point)}`, "apply_patch", { patch: patchIn(label(point)) }, point);
        await aborted(
          `append ${label(point)}`,
          "write",
          { path: `${label(point)}/f0.txt`, content: "appended\n", append: true },
          point,
        );
        await aborted(
          `edit ${label(point)}`,
          "edit",
          { path: `${label(point)}/f1.txt`, old_text: "old 1", new_text: "edited" },
          point,
        );
      }
      await settle();
      for (const point of POINTS) {
        const now = await contents(label(point));
        const patched = (await results.get(`patch ${label(point)}`))?.ok === true;
        const appended = (await results.get(`append ${label(point)}`))?.ok === true;
        const edited = (await results.get(`edit ${label(point)}`))?.ok === true;
        // What is on disk is exactly what the results said: a change reported aborted never lands.
        expect({ point: label(point), now }).toEqual({ point: label(point), now: expectedFiles(patched, appended, edited) });
      }
      // An aborted undo leaves the change it would have undone.
      for (const point of UNDO_POINTS) {
        expect(await run.call("write", { path: `${label(point)}/f2.txt`, content: "kept\n" })).toMatchObject({ ok: true });
        await aborted(`undo ${label(point)}`, "undo", {}, point);
        await settle(800);
        const undone = (await results.get(`undo ${label(point)}`))?.ok === true;
        expect(await readFile(path.join(workspace, label(point), "f2.txt"), "utf8")).toBe(undone ? "old 2\n" : "kept\n");
      }
      for (const point of POINTS) {
        expect((await readdir(path.join(workspace, label(point)))).filter((name) => name.startsWith(".atc-"))).toEqual([]);
      }
      await registry.close();
    }, 60_000);

    it(`${scope}: registry.close() during an apply_patch: the patch does not land after close`, async () => {
      await seed();
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      const result = run.call("apply_patch", { patch: patchIn(".") });
      await wait({ turns: 2 });
      await registry.close();
      expect(await result).toMatchObject({ ok: false, error: { code: "aborted" } });
      await settle();
      expect(await contents()).toEqual(OLD);
    });

    it(`${scope} control: the same calls not aborted land in full, and undo takes them back`, async () => {
      await seed();
      const registry = createRegistry({ tools: createFileTools() });
      const run = registry.createRun({ profile: "full", permissions: { sandbox: scope, workspace } });
      const controller = new AbortController();
      expect(await run.call("apply_patch", { patch: patchIn(".") }, { signal: controller.signal })).toMatchObject({ ok: true });
      expect(await contents()).toEqual(NEW);
      expect(await run.call("write", { path: "f0.txt", content: "appended\n", append: true })).toMatchObject({ ok: true });
      expect(await readFile(path.join(workspace, "f0.txt"), "utf8")).toBe("new 0\nappended\n");
      expect(await run.call("undo", { steps: 2 })).toMatchObject({ ok: true });
      expect(await contents()).toEqual(OLD);
      // Aborting after the result changes nothing either.
      controller.abort();
      await registry.close();
    });
  }
});
