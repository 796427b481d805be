import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const FILES = ["a.txt", "b.txt", "d/c.txt"] as const;
type Snapshot = Record<string, string | undefined>;

type Op =
  | { kind: "write"; file: number; text: string; pinned: boolean }
  | { kind: "edit"; file: number; line: number; text: string }
  | { kind: "patch"; files: number[]; text: string }
  | { kind: "undo" }
  | { kind: "redo" }
  | { kind: "outside"; file: number; text: string };

const word = fc.constantFrom("alpha", "beta", "gamma", "delta");
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("write" as const), file: fc.nat(2), text: word, pinned: fc.boolean() }),
  fc.record({ kind: fc.constant("edit" as const), file: fc.nat(2), line: fc.nat(2), text: word }),
  fc.record({
    kind: fc.constant("patch" as const),
    files: fc.uniqueArray(fc.nat(2), { minLength: 1, maxLength: 3 }),
    text: word,
  }),
  fc.constant({ kind: "undo" as const }),
  fc.constant({ kind: "redo" as const }),
  fc.record({ kind: fc.constant("outside" as const), file: fc.nat(2), text: word }),
);

async function snapshot(root: string): Promise<Snapshot> {
  const result: Snapshot = {};
  for (const file of FILES) result[file] = await readFile(path.join(root, file), "utf8").catch(() => undefined);
  return result;
}

async function leftovers(root: string): Promise<string[]> {
  return (await readdir(root, { recursive: true })).filter((name) => /\.(tmp|part)$/.test(name));
}

const versionIn = (text: string) => /v_[0-9a-f]{16}|v_absent/.exec(text)?.[0];

type Run = ReturnType<ReturnType<typeof createRegistry>["createRun"]>;
type ModelOp = Exclude<Op, { kind: "outside" }>;
/** An acknowledged change, as the model saw it: the files before and after. */
type Change = { before: Snapshot; after: Snapshot };

/** The patch that replaces (or adds) each of the op's files with one line of `op.text`. */
function patchOf(op: Extract<Op, { kind: "patch" }>, before: Snapshot): string {
  return [
    "*** Begin Patch",
    ...op.files.flatMap((index) => {
      const name = FILES[index] as string;
      const current = before[name];
      return current === undefined
        ? [`*** Add File: ${name}`, `+${op.text}`]
        : [
            `*** Update File: ${name}`,
            "@@",
            ...current
              .trimEnd()
              .split("\n")
              .map((text) => `-${text}`),
            `+${op.text}`,
          ];
    }),
    "*** End Patch",
  ].join("\n");
}

/** Makes the call the op stands for, as a model would (a pinned write reads the version first). */
async function callOp(run: Run, root: string, op: ModelOp, before: Snapshot): Promise<ToolCallResult> {
  if (op.kind === "write") {
    const file = FILES[op.file] as string;
    const read = op.pinned ? await run.call("read", { path: file }) : undefined;
    const version = read === undefined ? undefined : read.ok ? versionIn(String(read.output)) : "v_absent";
    const result = await run.call("write", {
      path: file,
      content: `${op.text}\n`,
      ...(version === undefined ? {} : { expected_version: version }),
    });
    if (result.ok) expect(await readFile(path.join(root, file), "utf8")).toBe(`${op.text}\n`);
    return result;
  }
  if (op.kind === "edit") {
    const file = FILES[op.file] as string;
    const line = (before[file] ?? "").split("\n")[op.line] ?? "missing";
    return run.call("edit", { path: file, old_text: line === "" ? "missing" : line, new_text: op.text });
  }
  if (op.kind === "patch") return run.call("apply_patch", { patch: patchOf(op, before) });
  return run.call("undo", { action: op.kind });
}

/** Moves `entry` (if any) from one history to the other after checking its files are at `state`. */
function expectReplayed(entry: Change | undefined, after: Snapshot, state: "before" | "after", to: Change[]): void {
  if (entry === undefined) return;
  for (const name of FILES) if (entry.before[name] !== entry.after[name]) expect(after[name]).toBe(entry[state][name]);
  to.push(entry);
}

/** Checks an acknowledged call's effect against the histories, and updates them. */
function recordAcknowledged(op: ModelOp, before: Snapshot, after: Snapshot, done: Change[], undone: Change[]): void {
  if (op.kind === "undo") {
    // Undone files are back to their state before the change (and only then was it allowed).
    expectReplayed(done.pop(), after, "before", undone);
  } else if (op.kind === "redo") {
    expectReplayed(undone.pop(), after, "after", done);
  } else if (op.kind === "write" || JSON.stringify(before) !== JSON.stringify(after)) {
    // Every acknowledged write is journaled (even one that left the same bytes).
    done.push({ before, after });
    undone.length = 0;
  }
}

describe("file tools under random write/edit/patch/undo/redo sequences with outside changes", () => {
  it("every file is as before or as after each acknowledged change; failures change nothing; undo never overwrites an outside change", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArbitrary, { minLength: 4, maxLength: 14 }), async (ops) => {
        const root = await mkdtemp(path.join(tmpdir(), "atc-prop-"));
        try {
          const run = createRegistry({ tools: createFileTools({ redo: true }) }).createRun({
            profile: "full",
            permissions: { sandbox: "workspace", workspace: root },
          });
          await writeFile(path.join(root, "a.txt"), "one\ntwo\nthree\n");
          const done: Change[] = [];
          const undone: Change[] = [];
          for (const op of ops) {
            if (op.kind === "outside") {
              await writeFile(path.join(root, FILES[op.file] as string), `${op.text}\n`).catch(() => undefined);
              continue;
            }
            const before = await snapshot(root);
            const result = await callOp(run, root, op, before);
            const after = await snapshot(root);
            if (!result.ok) {
              // A refused or failed call changed nothing.
              expect(after).toEqual(before);
              continue;
            }
            recordAcknowledged(op, before, after, done, undone);
            expect(await leftovers(root)).toEqual([]);
          }
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
