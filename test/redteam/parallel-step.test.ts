/**
 * Red team round 6, concurrency: one model step with many tool calls, which the AI SDK runs in
 * parallel (`generateText`, a scripted model), on the things a run shares: the edit journal and
 * file locks (edits of one file, then undo of each), and approvals (several waiting at once,
 * answered in another order). Every call must get its own result, no edit may be lost or applied
 * twice, and undo must restore the file exactly.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { createRegistry, defineTool } from "agent-tool-catalog";
import { createAiSdkTools } from "agent-tool-catalog/ai-sdk";
import { createFileTools } from "agent-tool-catalog/tools";
import { generateText, stepCountIs } from "ai";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { toolCall as call, scriptedModel as scripted } from "../support/scripted-model.js";

/** The tool results of the last prompt, by call id. */
function results(options: LanguageModelV3CallOptions | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const message of options?.prompt ?? []) {
    if (message.role !== "tool") continue;
    for (const part of message.content) if (part.type === "tool-result") out.set(part.toolCallId, JSON.stringify(part.output));
  }
  return out;
}

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-parallel-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("parallel tool calls in one AI SDK step", () => {
  it("twelve edits of one file in one step all land once, and twelve parallel undos restore it exactly", async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `line ${i}`);
    const original = `${lines.join("\n")}\n`;
    await writeFile(path.join(workspace, "f.txt"), original);
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
    const edits = lines.map((line, i) =>
      call(`e${i}`, "edit", { path: "f.txt", old_text: `${line}\n`, new_text: `LINE ${i}\n` }),
    );
    const undos = lines.map((_, i) => call(`u${i}`, "undo", {}));
    const { model, seen } = scripted([edits, undos]);
    const { tools, prepareStep } = createAiSdkTools(run);
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(4), prompt: "edit" });

    // Every edit of another line landed, once: the locks serialise them and each re-reads.
    const afterEdits = results(seen[1]);
    expect([...afterEdits.keys()].sort()).toEqual(lines.map((_, i) => `e${i}`).sort());
    for (const text of afterEdits.values()) expect(text).not.toContain("error");
    // Twelve parallel undos take successive entries: each undoes one edit, and the file is the
    // original again. (They all took the newest entry before: one won, eleven conflicted.)
    const undoResults = [...results(seen[2]).entries()].filter(([id]) => id.startsWith("u"));
    expect(undoResults).toHaveLength(12);
    for (const [, text] of undoResults) expect(text).toContain("Undid edit");
    expect(await readFile(path.join(workspace, "f.txt"), "utf8")).toBe(original);
    expect((await run.call("undo", {})).ok).toBe(false);
  });

  it("an undo running beside an edit of another file marks the entry it reverted, not the edit's", async () => {
    // 60 rounds: the edit must record while the undo reverts (about one round in ten before).
    for (let round = 0; round < 60; round++) {
      await writeFile(path.join(workspace, "a.txt"), "a0\n");
      await writeFile(path.join(workspace, "b.txt"), "b0\n");
      const run = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
      expect((await run.call("edit", { path: "b.txt", old_text: "b0", new_text: "b1" })).ok).toBe(true);
      const [undo, edit] = await Promise.all([
        run.call("undo", {}),
        run.call("edit", { path: "a.txt", old_text: "a0", new_text: "a1" }),
      ]);
      expect([undo.ok, edit.ok]).toEqual([true, true]);
      expect(await readFile(path.join(workspace, "b.txt"), "utf8")).toBe("b0\n");
      // The journal agrees with the disk: the next undo reverts the edit of a.txt.
      expect(await run.call("undo", {})).toMatchObject({ ok: true, output: expect.stringContaining("a.txt") });
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("a0\n");
      await run.close();
    }
  }, 60_000);

  it("eight calls waiting for approval at once are each decided on their own, answered in reverse order", async () => {
    const ran: number[] = [];
    const registry = createRegistry({
      tools: [
        defineTool({
          name: "act",
          description: "Acts.",
          mutating: true,
          inputSchema: z.object({ n: z.number() }),
          handler: ({ n }) => {
            ran.push(n);
            return `did ${n}`;
          },
        }),
      ],
    });
    const requested: { id: string; n: number }[] = [];
    registry.events.on("approval.requested", (request) => {
      requested.push({ id: request.id, n: (request.input as { n: number }).n });
      if (requested.length < 8) return;
      // All eight wait: answer in reverse order, odd ones denied.
      for (const { id, n } of [...requested].reverse()) {
        if (n % 2 === 0) void registry.approvals.approve(id);
        else void registry.approvals.deny(id, `no ${n}`);
      }
    });
    const run = registry.createRun({ permissions: { approval: "destructive" } });
    const { model, seen } = scripted([Array.from({ length: 8 }, (_, n) => call(`a${n}`, "act", { n }))]);
    const { tools, prepareStep } = createAiSdkTools(run);
    await generateText({ model, tools, prepareStep, stopWhen: stepCountIs(3), prompt: "act" });
    expect(ran.sort()).toEqual([0, 2, 4, 6]);
    const answers = results(seen[1]);
    for (let n = 0; n < 8; n++) {
      if (n % 2 === 0) expect(answers.get(`a${n}`)).toContain(`did ${n}`);
      else expect(answers.get(`a${n}`)).toContain(`no ${n}`);
    }
  });
});
