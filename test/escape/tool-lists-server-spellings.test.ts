/**
 * Red team round 27: a host's tool lists written as an MCP server spells its tools, against the
 * folded names the catalog registers (`mcp_<server>_<tool>`: lower case, NFKD without marks,
 * `[^a-z0-9_]` as `_`, a hash past 64 characters). Before stop 48 a deny entry such as
 * `mcp_Café-Docs_echo` turned nothing off (a warning named the real tool, and the tool ran): a
 * deny list that failed open. Each attempt runs a real server (@modelcontextprotocol/server-everything
 * over stdio) and calls the tool; each has its control (the same tool runs where not denied).
 */
import { createRegistry, defineTool, parseToolConfig, type Registry, type Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { z } from "zod";
import { escapeAttempt } from "./support/escape-attempt.js";
import { connectEverything, diagnosedNames } from "./support/everything-servers.js";

/** A server name with an accent, a capital and a `-`: its tools register as `mcp_cafe_docs_<tool>`. */
const SERVER = "Café-Docs";
const ECHO = "mcp_cafe_docs_echo";
/** The server lists it as `get-sum`. */
const SUM = "mcp_cafe_docs_get_sum";
/** A name long enough that every tool of the server is cut and hashed. */
const LONG_SERVER = `Docs-${"v".repeat(60)}`;
/** A host tool whose name folds to the server's `get_sum` but is not in folded form. */
const HOST_SUM = "mcp_cafe_docs_Get_Sum";

/** The echo tool as a host might write it: the server's spelling, NFD, upper case, fullwidth. */
const ECHO_SPELLINGS = [
  "mcp_Café-Docs_echo",
  "mcp_Cafe\u0301-Docs_echo",
  "mcp_café.docs_Echo",
  "MCP_CAFE_DOCS_ECHO",
  "mcp_cafe docs_ｅｃｈｏ",
  "mcp_cafe/docs_echo",
];

let registry: Registry;
const hostRan: string[] = [];
let longEcho: string;
let longSum: string;

beforeAll(async () => {
  registry = createRegistry({
    tools: [
      defineTool({
        name: HOST_SUM,
        description: "The host's own sum, named so that it folds to the server's.",
        inputSchema: z.object({}),
        handler: () => {
          hostRan.push(HOST_SUM);
          return "host";
        },
      }),
    ],
  });
  await connectEverything(registry, SERVER);
  ({ echo: longEcho, sum: longSum } = await connectEverything(registry, LONG_SERVER));
}, 90_000);

afterAll(async () => {
  await registry.close();
});

async function echo(run: Run, name = ECHO) {
  run.activate([name]);
  return run.call(name, { message: "hi" });
}

describe("escape attempts: tool lists in an MCP server's own spelling", () => {
  escapeAttempt(
    "tool-lists",
    "disabledTools, loadModes off and [tools] disabled in the server's spelling (accent, NFD, case, '.', fullwidth) turn the folded tool off",
    async () => {
      for (const spelling of ECHO_SPELLINGS) {
        const runs = [
          registry.createRun({ disabledTools: [spelling] }),
          registry.createRun({ loadModes: { [spelling]: "off" } }),
          registry.createRun({ config: parseToolConfig(`[tools]\ndisabled = [${JSON.stringify(spelling)}]\n`) }),
          // off wins over the exact name's other mode: a deny list fails closed.
          registry.createRun({ loadModes: { [ECHO]: "essential" }, disabledTools: [spelling] }),
        ];
        for (const run of runs) {
          expect(await echo(run), spelling).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
          expect(run.definitions().map((tool) => tool.name)).not.toContain(ECHO);
          expect(diagnosedNames(run, "unknown_load_mode_tool"), spelling).toEqual([]);
          expect(run.reach(ECHO), spelling).toBe("off");
          // Control inside the same run: the server's other tool is not turned off.
          run.activate([SUM]);
          expect(await run.call(SUM, { a: 1, b: 2 }), spelling).toMatchObject({ ok: true });
        }
      }
      // Control: not denied, the same tool runs.
      expect(await echo(registry.createRun())).toMatchObject({ ok: true, output: expect.stringContaining("hi") });
    },
  );

  escapeAttempt(
    "tool-lists",
    "a deny entry in the server's spelling of a cut-and-hashed name (server name past 64 characters) turns the hashed tool off",
    async () => {
      expect(longEcho).toMatch(/^mcp_docs_v+_[0-9a-f]{10}$/);
      expect(longEcho.length).toBe(64);
      const run = registry.createRun({ disabledTools: [`mcp_${LONG_SERVER}_echo`] });
      expect(await echo(run, longEcho)).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
      expect(diagnosedNames(run, "unknown_load_mode_tool")).toEqual([]);
      // Only the hash tells the server's tools apart, so the entry covers every one sharing the
      // cut (documented): get_sum is off too; the short-named server's echo is not.
      expect(run.reach(longSum)).toBe("off");
      expect(await echo(run)).toMatchObject({ ok: true });
      // Control: not denied, the hashed tool runs under its registered name.
      expect(await echo(registry.createRun(), longEcho)).toMatchObject({ ok: true, output: expect.stringContaining("hi") });
    },
  );

  escapeAttempt(
    "tool-lists",
    "a deny entry covers a host tool and a server tool that fold alike; an allow entry in the server's spelling allows the server's tool only",
    async () => {
      hostRan.length = 0;
      const denied = registry.createRun({ disabledTools: ["mcp_café-docs_get.sum"] });
      for (const name of [SUM, HOST_SUM]) {
        denied.activate([name]);
        expect(await denied.call(name, { a: 1, b: 2 }), name).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
      }
      // Allow lists (allowedTools, a skill's allowed-tools) match the server's spelling the same
      // way, but a fold never allows a name that is not itself folded (the host's tool).
      const allowed = registry.createRun({ allowedTools: ["mcp_Café-Docs_get-sum"] });
      expect(allowed.diagnostics().filter((each) => each.kind === "unknown_allowed_tool")).toEqual([]);
      const skill = registry.createRun();
      skill.applySkillConstraint("docs", ["mcp_Café-Docs_get-sum"]);
      for (const run of [allowed, skill]) {
        for (const name of [HOST_SUM, ECHO]) {
          run.activate([name]);
          expect((await run.call(name, { a: 1, b: 2, message: "x" })).ok, name).toBe(false);
        }
        run.activate([SUM]);
        expect(await run.call(SUM, { a: 1, b: 2 })).toMatchObject({ ok: true, output: expect.stringContaining("3") });
      }
      expect(hostRan).toEqual([]);
      // Control: the host's tool runs where it is allowed by its own name.
      const host = registry.createRun({ allowedTools: [HOST_SUM] });
      host.activate([HOST_SUM]);
      expect(await host.call(HOST_SUM, {})).toMatchObject({ ok: true });
      expect(hostRan).toEqual([HOST_SUM]);
    },
  );

  escapeAttempt(
    "child-runs",
    "a child run's allowedTools in the server's spelling get no more than the parent's, also when the parent wrote the server's spelling",
    async () => {
      hostRan.length = 0;
      const parent = registry.createRun({ allowedTools: [SUM] });
      const child = registry.createRun({ parent, allowedTools: ["mcp_Café-Docs_Get-Sum", HOST_SUM, ECHO] });
      expect(child.scope().allowedTools).toEqual([SUM]);
      const spelled = registry.createRun({ allowedTools: ["mcp_Café-Docs_get-sum"] });
      const grandchild = registry.createRun({ parent: spelled, allowedTools: [SUM, HOST_SUM, "mcp_cafe_docs_Echo"] });
      expect(grandchild.scope().allowedTools).toEqual([SUM]);
      for (const run of [child, grandchild]) {
        for (const name of [HOST_SUM, ECHO]) {
          run.activate([name]);
          expect((await run.call(name, { message: "x" })).ok, name).toBe(false);
        }
        // Control: the tool both allow runs in the child.
        run.activate([SUM]);
        expect(await run.call(SUM, { a: 2, b: 2 })).toMatchObject({ ok: true, output: expect.stringContaining("4") });
      }
      expect(hostRan).toEqual([]);
    },
  );
});

describe("escape attempts: a parent's deny list in its child runs", () => {
  escapeAttempt(
    "child-runs",
    "a tool the parent turned off (by its name or the server's spelling) stays off in a child, a grandchild and a child made from the scope as JSON",
    async () => {
      for (const parentOptions of [{ disabledTools: [ECHO] }, { loadModes: { "mcp_Café-Docs_Echo": "off" as const } }]) {
        const parent = registry.createRun(parentOptions);
        // The child asks for the tool by name and as essential: the parent's off wins.
        const child = registry.createRun({ parent, allowedTools: [ECHO, SUM], loadModes: { [ECHO]: "essential" } });
        const grandchild = registry.createRun({ parent: child });
        const fromJson = registry.createRun({ parent: JSON.parse(JSON.stringify(parent.scope())) });
        for (const run of [child, grandchild, fromJson]) {
          expect(await echo(run)).toMatchObject({ ok: false, error: { code: "tool_disabled" } });
          // Control in the same child: the parent's other tool runs.
          run.activate([SUM]);
          expect(await run.call(SUM, { a: 1, b: 1 })).toMatchObject({ ok: true });
        }
      }
      // Control: a child of a parent that turned nothing off runs the tool.
      expect(await echo(registry.createRun({ parent: registry.createRun() }))).toMatchObject({ ok: true });
    },
  );
});
