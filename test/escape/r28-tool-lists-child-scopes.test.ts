/**
 * Red team round 28: a child run's tool list and the parent scope it narrows. Two attacks:
 *
 * - Narrowing folded host names: a top-level `allowedTools: ["NOTES_ECHO"]` allows nothing (host
 *   names are exact), but a child asking `NOTES_ECHO` under a parent allowing `notes_echo` was
 *   given `notes_echo` (`AllowedNames.narrow` folded every entry, not only MCP names). Not a
 *   widening past the parent, but the same entry meant two things: a child list written for
 *   another host (or by a model naming tools in its own case) reached a tool it does not name.
 * - A parent scope saved as JSON (a workflow checkpoint, a queue message) given back malformed by
 *   a hostile host or store: `allowedTools` as a string was iterated as its letters (a parent
 *   allowing one tool gave its child every one-letter tool), a negative or fractional `depth`
 *   lifted the bound on nested runs, and permissions without `approval` were read as the default
 *   (`none`), so a child of a parent asking before every call ran a mutating tool unasked.
 *
 * Each attempt calls real tools through `run.call`; each has its control (the same call where the
 * list or scope allows it).
 */
import { ConfigurationError, createRegistry, defineTool, InMemoryApprovalBroker, type Run } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";

const ran: string[] = [];
function tool(name: string, mutating = false) {
  return defineTool({
    name,
    description: `The ${name} tool.`,
    mutating,
    inputSchema: z.object({}),
    handler: () => {
      ran.push(name);
      return `${name} ran`;
    },
  });
}

const approvals = new InMemoryApprovalBroker();
// `e`, `c`, `h`, `o`: what a string `allowedTools: "echo"` iterates as.
const registry = createRegistry({
  approvals,
  tools: [tool("notes_echo"), tool("e"), tool("c"), tool("h"), tool("o"), tool("wipe", true)],
});

async function call(run: Run, name: string) {
  run.activate([name]);
  return run.call(name, {}, { signal: AbortSignal.timeout(2_000) });
}

const NOT_ALLOWED = { ok: false, error: { code: "tool_not_allowed" } };

function refusal(make: () => unknown): unknown {
  try {
    make();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("escape attempts: a child run's tool list and its parent's scope", () => {
  escapeAttempt(
    "tool-lists",
    "a child asking a host tool in another case (NOTES_ECHO, Notes-Echo under a parent allowing notes_echo) gets nothing, as a top-level list does",
    async () => {
      const parent = registry.createRun({ allowedTools: ["notes_echo"] });
      for (const spelling of ["NOTES_ECHO", "Notes-Echo", "notes.echo", "ｎｏｔｅｓ_ｅｃｈｏ"]) {
        const top = registry.createRun({ allowedTools: [spelling] });
        expect(await call(top, "notes_echo"), `top ${spelling}`).toMatchObject(NOT_ALLOWED);
        for (const from of [parent, JSON.parse(JSON.stringify(parent.scope()))]) {
          const child = registry.createRun({ parent: from, allowedTools: [spelling] });
          expect(child.scope().allowedTools, spelling).toEqual([]);
          expect(await call(child, "notes_echo"), `child ${spelling}`).toMatchObject(NOT_ALLOWED);
          // And in its own child: nothing to narrow back to.
          expect(registry.createRun({ parent: child }).scope().allowedTools, spelling).toEqual([]);
        }
      }
      // Control: the exact name is kept and runs, in a child and in a grandchild.
      const child = registry.createRun({ parent, allowedTools: ["notes_echo", "NOTES_ECHO"] });
      expect(child.scope().allowedTools).toEqual(["notes_echo"]);
      expect(await call(child, "notes_echo")).toMatchObject({ ok: true, output: "notes_echo ran" });
      expect(await call(registry.createRun({ parent: child.scope() }), "notes_echo")).toMatchObject({ ok: true });
    },
  );

  escapeAttempt(
    "child-runs",
    "a parent scope given back malformed (allowedTools a string, depth negative or fractional, permissions without approval or sandbox) is refused, never read as a wider scope",
    async () => {
      const parent = registry.createRun({ allowedTools: ["echo", "wipe"], permissions: { approval: "all" } });
      const saved = () => JSON.parse(JSON.stringify(parent.scope()));
      const { approval: _, ...withoutApproval } = saved().permissions;
      const { sandbox: __, ...withoutSandbox } = saved().permissions;
      const malformed: [string, Record<string, unknown>][] = [
        ["parent.allowedTools", { allowedTools: "echo" }],
        ["parent.allowedTools", { allowedTools: [["echo"]] }],
        ["parent.allowedTools", { allowedTools: null }],
        ["parent.depth", { depth: -50 }],
        ["parent.depth", { depth: 0.5 }],
        ["parent.depth", { depth: null }],
        ["parent.depth", { depth: "0" }],
        ["parent.permissions", { permissions: null }],
        ["parent.permissions", { permissions: undefined }],
        ["parent.permissions.approval", { permissions: withoutApproval }],
        ["parent.permissions.sandbox", { permissions: withoutSandbox }],
      ];
      ran.length = 0;
      for (const [field, change] of malformed) {
        const scope = { ...saved(), ...change };
        const thrown = refusal(() => registry.createRun({ parent: scope }));
        expect(thrown, `${field} ${JSON.stringify(change)}`).toBeInstanceOf(ConfigurationError);
        expect(thrown, field).toMatchObject({ code: "invalid_option", data: { field } });
      }
      expect(ran).toEqual([]);
      // Control: the scope as saved makes a child that keeps the parent's list and approvals.
      const child = registry.createRun({ parent: saved() });
      expect(child.depth).toBe(1);
      for (const name of ["e", "c", "h", "o", "notes_echo"]) expect(await call(child, name), name).toMatchObject(NOT_ALLOWED);
      const asked: string[] = [];
      const off = approvals.events.on("approval.requested", (request) => {
        asked.push(request.toolName);
        approvals.approve(request.id);
      });
      try {
        expect(await call(child, "wipe")).toMatchObject({ ok: true, output: "wipe ran" });
      } finally {
        off();
      }
      expect(asked).toEqual(["wipe"]);
      // Control: the depth bound holds for a well-formed scope at the limit.
      expect(refusal(() => registry.createRun({ parent: { ...saved(), depth: 64 } }))).toMatchObject({ code: "run_too_deep" });
    },
  );

  it("control: a top-level run allows one-letter tools by their names", async () => {
    const run = registry.createRun({ allowedTools: ["e", "c"] });
    expect(await call(run, "e")).toMatchObject({ ok: true, output: "e ran" });
    expect(await call(run, "h")).toMatchObject(NOT_ALLOWED);
  });
});
