// Review finding (stop 37): the default report of a throwing listener warned once per event type
// per bus, and every run has its own bus, so a host attaching a throwing listener to each run's
// events got one process warning per run (50 runs, 50 warnings). Now at most 10 per process.
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const echo = defineTool({
  name: "echo",
  description: "Echoes a word.",
  inputSchema: z.object({ word: z.string() }),
  handler: ({ word }) => `echo ${word}`,
});

describe("listener-error warnings are bounded per process", () => {
  it("50 runs, each with a throwing tool.called listener: every call answers, at most 10 warnings, the last says so; a second listener still hears every event", async () => {
    const registry = createRegistry({ tools: [echo] });
    const seen: Error[] = [];
    const listen = (warning: Error) => {
      if ((warning as Error & { code?: string }).code === "ATC_LISTENER_ERROR") seen.push(warning);
    };
    process.on("warning", listen);
    let heard = 0;
    try {
      for (let index = 0; index < 50; index++) {
        const run = registry.createRun();
        run.events.on("tool.called", () => {
          throw new Error(`observer ${index} broken`);
        });
        run.events.on("tool.called", () => {
          heard++;
        });
        expect(await run.call("echo", { word: `w${index}` })).toMatchObject({ ok: true, output: `echo w${index}` });
        await run.close();
      }
      // Warnings are delivered on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off("warning", listen);
      await registry.close();
    }
    expect(heard).toBe(50);
    // The fault was met and reported (not silently swallowed), but bounded.
    expect(seen.length).toBe(10);
    expect(seen[0]?.message).toContain("observer 0 broken");
    expect(seen[9]?.message).toContain("last such warning");
    expect(seen[8]?.message).not.toContain("last such warning");
  });
});
