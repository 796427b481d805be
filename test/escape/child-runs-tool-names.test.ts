/**
 * Red team round 25: a tool a run may not use, called under other spellings of its name. A
 * child run is given only `echo` by its parent; the model calls the forbidden `shell` as `Shell`,
 * `SHELL`, with spaces, a NUL, a zero-width space, Cyrillic and fullwidth lookalike letters, a
 * path-like and a list-like name, and the child asks for lookalike names in its own
 * `allowedTools`. Names are compared as exact strings: none runs `shell`'s handler.
 * Controls: `echo` runs in the child; `shell` runs in a run that allows it.
 */
import { createRegistry, defineTool } from "agent-tool-catalog";
import { describe, expect } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

const LOOKALIKES = [
  "Shell",
  "SHELL",
  "shell ",
  " shell",
  "shell\u0000",
  "shell\u200b",
  "\u0455hell", // Cyrillic dze
  "sh\u0435ll", // Cyrillic ie
  "\uff53\uff48\uff45\uff4c\uff4c", // fullwidth
  "echo/../shell",
  "echo,shell",
];

describe("escape attempts: tool names outside a child run's allowedTools", () => {
  escapeAttempt(
    "child-runs",
    "a forbidden tool called under lookalike spellings of its name, and asked for under them",
    async () => {
      let ran = 0;
      const echo = defineTool({ name: "echo", description: "Echo.", inputSchema: z.object({}), handler: () => "echoed" });
      const shell = defineTool({
        name: "shell",
        description: "Runs a command.",
        mutating: true,
        inputSchema: z.object({}),
        handler: () => {
          ran++;
          return "ran";
        },
      });
      const registry = createRegistry({ tools: [echo, shell] });
      const parent = registry.createRun({ allowedTools: ["echo"] });
      const child = registry.createRun({ parent, allowedTools: ["echo"] });
      for (const name of ["shell", ...LOOKALIKES]) {
        const result = await child.call(name, {});
        expect(result.ok, JSON.stringify(name)).toBe(false);
      }
      // The child asks for the lookalikes themselves: still nothing but echo (and find_tool).
      const asking = registry.createRun({
        parent,
        allowedTools: ["echo", ...LOOKALIKES.filter((name) => !name.includes("\u0000"))],
      });
      expect(asking.definitions().map((tool) => tool.name)).toEqual(["find_tool", "echo"]);
      for (const name of ["shell", ...LOOKALIKES]) expect((await asking.call(name, {})).ok, JSON.stringify(name)).toBe(false);
      expect(ran).toBe(0);
      // Controls: the allowed tool runs in the child, the forbidden one where it is allowed.
      expect(await child.call("echo", {})).toMatchObject({ ok: true, output: "echoed" });
      expect(await registry.createRun({ allowedTools: ["shell"] }).call("shell", {})).toMatchObject({ ok: true, output: "ran" });
      expect(ran).toBe(1);
    },
  );
});
