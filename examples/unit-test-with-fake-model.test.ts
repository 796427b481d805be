/**
 * How a host unit-tests its own tool against a fake model: the scripted model plays the turns,
 * the run is real (validation, visibility, find_tool), and the assertions read the transcript.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { expectCalled, expectToolsHidden, expectToolsVisible, runToolLoop, ScriptedModel } from "agent-tool-catalog/testing";
import { expect, it } from "vitest";
import { z } from "zod";

// The host's tool under test.
const createTicket = defineTool({
  name: "create_ticket",
  description: "Create a ticket in the issue tracker.",
  tier: "deferred",
  mutating: true,
  tags: ["issues", "tracker", "bug"],
  inputSchema: z.object({ title: z.string().min(3), priority: z.enum(["low", "high"]).default("low") }),
  handler: ({ title, priority }) => ({ id: "T-1", title, priority }),
});

it("lets the model find create_ticket, recover from a bad call, and create the ticket", async () => {
  const run = createRegistry({ tools: [createTicket] }).createRun();
  const model = new ScriptedModel([
    {
      expectHidden: ["create_ticket"],
      respond: { toolCalls: [{ name: "find_tool", args: { query: "file a bug in the issue tracker" } }] },
    },
    { expectVisible: ["create_ticket"], respond: { toolCalls: [{ name: "create_ticket", args: { title: "x" } }] } },
    {
      check: ({ messages }) =>
        expect(messages.at(-1)).toMatchObject({ role: "tool", content: expect.stringContaining('"path":"title"') }),
      respond: { toolCalls: [{ name: "create_ticket", args: { title: "Login fails", priority: "high" } }] },
    },
    { respond: { text: "Filed T-1." } },
  ]);

  const transcript = await runToolLoop(run, model, { prompt: "Login is broken, file a bug." });

  expectToolsHidden(transcript, 1, ["create_ticket"]);
  expectToolsVisible(transcript, 2, ["create_ticket"]);
  const [created] = expectCalled(transcript, "create_ticket");
  expect(created?.result).toMatchObject({ ok: true, output: { id: "T-1", priority: "high" } });
  expect(transcript.finalText).toBe("Filed T-1.");
});
