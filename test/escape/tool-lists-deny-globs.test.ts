/**
 * Stop 48: deny entries with a `*` (`disabledTools: ["mcp_docs_*"]`, load mode `off`, `[tools]
 * disabled`). Before, no tool name could contain `*`, so such an entry turned nothing off (it was
 * only warned about) while its writer meant "turn off every docs tool": a deny list failing open.
 * Now `*` matches any run of name characters over folded names. Allow entries with `*` stay exact
 * (before, `mcp_docs*echo` allowed `mcp_docs_echo` by folding `*` to `_`). Each attempt runs real
 * servers (@modelcontextprotocol/server-everything over stdio) and calls their tools; each has its
 * control (a tool the glob does not match runs).
 */
import { createRegistry, parseToolConfig, type Registry, type Run } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { escapeAttempt } from "./support/escape-attempt.js";
import { connectEverything, diagnosedNames } from "./support/everything-servers.js";

const DOCS_ECHO = "mcp_docs_echo";
const DOCS_SUM = "mcp_docs_get_sum";
const NOTES_ECHO = "mcp_notes_echo";
const NOTES_SUM = "mcp_notes_get_sum";
/** A name long enough that every tool of the server is cut and hashed. */
const LONG_SERVER = `Long-${"v".repeat(60)}`;

let registry: Registry;
let longEcho: string;
let longSum: string;

beforeAll(async () => {
  registry = createRegistry();
  await connectEverything(registry, "Docs");
  await connectEverything(registry, "Notes");
  ({ echo: longEcho, sum: longSum } = await connectEverything(registry, LONG_SERVER));
}, 90_000);

afterAll(async () => {
  await registry.close();
});

async function call(run: Run, name: string) {
  run.activate([name]);
  return run.call(name, { message: "hi", a: 1, b: 2 });
}

const DISABLED = { ok: false, error: { code: "tool_disabled" } };

describe("escape attempts: deny entries with a glob", () => {
  escapeAttempt(
    "tool-lists",
    "disabledTools, loadModes off and [tools] disabled with a `*` (mcp_docs_*, the server's spelling, mcp_*_echo) turn off every tool they match, also in a child run",
    async () => {
      const cases: { glob: string; off: string[]; on: string[] }[] = [
        { glob: "mcp_docs_*", off: [DOCS_ECHO, DOCS_SUM], on: [NOTES_ECHO, NOTES_SUM] },
        { glob: "mcp_Docs_*", off: [DOCS_ECHO, DOCS_SUM], on: [NOTES_ECHO] },
        { glob: "mcp_*_Echo", off: [DOCS_ECHO, NOTES_ECHO], on: [DOCS_SUM, NOTES_SUM] },
        { glob: "mcp_docs_get*", off: [DOCS_SUM], on: [DOCS_ECHO, NOTES_SUM] },
      ];
      for (const { glob, off, on } of cases) {
        const parent = registry.createRun({ disabledTools: [glob] });
        const runs = [
          parent,
          registry.createRun({ loadModes: { [glob]: "off" } }),
          registry.createRun({ config: parseToolConfig(`[tools]\ndisabled = [${JSON.stringify(glob)}]\n`) }),
          // off wins over the exact name's other mode: a deny list fails closed.
          registry.createRun({
            loadModes: Object.fromEntries(off.map((name) => [name, "essential" as const])),
            disabledTools: [glob],
          }),
          // A parent's glob holds in its child, also from the scope saved as JSON.
          registry.createRun({ parent, allowedTools: [...off, ...on] }),
          registry.createRun({ parent: JSON.parse(JSON.stringify(parent.scope())) }),
        ];
        for (const run of runs) {
          for (const name of off) {
            expect(await call(run, name), `${glob} ${name}`).toMatchObject(DISABLED);
            expect(run.reach(name), `${glob} ${name}`).toBe("off");
          }
          expect(diagnosedNames(run, "unknown_load_mode_tool"), glob).toEqual([]);
          // Control inside the same run: tools the glob does not match run.
          for (const name of on) expect(await call(run, name), `${glob} ${name}`).toMatchObject({ ok: true });
        }
      }
      // Control: not denied, the same tools run.
      for (const name of [DOCS_ECHO, DOCS_SUM]) expect(await call(registry.createRun(), name)).toMatchObject({ ok: true });
    },
  );

  escapeAttempt(
    "tool-lists",
    "a glob covers a server's cut-and-hashed tools (server name past 64 characters), also by a tail the hash hides",
    async () => {
      expect(longEcho).toMatch(/^mcp_long_v+_[0-9a-f]{10}$/);
      for (const glob of ["mcp_long_*", `mcp_${LONG_SERVER}*`, "*_echo"]) {
        const run = registry.createRun({ disabledTools: [glob] });
        // Only the hash tells the server's tools apart: a glob that would match one covers both.
        for (const name of [longEcho, longSum]) expect(await call(run, name), `${glob} ${name}`).toMatchObject(DISABLED);
        expect(diagnosedNames(run, "unknown_load_mode_tool"), glob).toEqual([]);
        // Control: the short-named server's sum is not covered.
        expect(await call(run, DOCS_SUM), glob).toMatchObject({ ok: true });
      }
      // Control: not denied, the hashed tool runs under its registered name.
      expect(await call(registry.createRun(), longEcho)).toMatchObject({ ok: true, output: expect.stringContaining("hi") });
    },
  );

  escapeAttempt(
    "tool-lists",
    "an allow entry with a `*` stays exact (mcp_docs*echo folds to mcp_docs_echo but allows nothing) and is reported; a deny glob matching nothing is reported",
    async () => {
      const allowed = registry.createRun({ allowedTools: ["mcp_docs*echo", "mcp_notes_*"] });
      const skill = registry.createRun();
      skill.applySkillConstraint("docs", ["mcp_docs*echo", "mcp_notes_*"]);
      const child = registry.createRun({
        parent: registry.createRun({ allowedTools: [DOCS_ECHO] }),
        allowedTools: ["mcp_docs*echo"],
      });
      for (const run of [allowed, skill, child]) {
        for (const name of [DOCS_ECHO, NOTES_ECHO]) expect((await call(run, name)).ok, name).toBe(false);
      }
      expect(diagnosedNames(allowed, "unknown_allowed_tool").sort()).toEqual(["mcp_docs*echo", "mcp_notes_*"]);
      // Another load mode than off: exact too, so the tool is not put on the eager surface.
      const essential = registry.createRun({ loadModes: { "mcp_docs*echo": "essential" } });
      expect(essential.definitions().map((tool) => tool.name)).not.toContain(DOCS_ECHO);
      expect(diagnosedNames(essential, "unknown_load_mode_tool")).toEqual(["mcp_docs*echo"]);
      // A deny glob matching nothing keeps its warning (and turns nothing off).
      const nothing = registry.createRun({ disabledTools: ["mcp_nothing_*"] });
      expect(diagnosedNames(nothing, "unknown_load_mode_tool")).toEqual(["mcp_nothing_*"]);
      expect(await call(nothing, DOCS_ECHO)).toMatchObject({ ok: true });
      // Control: the same tools allowed by their names (or the server's spelling) run.
      const named = registry.createRun({ allowedTools: ["mcp_Docs_Echo", NOTES_ECHO] });
      for (const name of [DOCS_ECHO, NOTES_ECHO]) expect(await call(named, name)).toMatchObject({ ok: true });
      const eager = registry.createRun({ loadModes: { mcp_Docs_Echo: "essential" } });
      expect(eager.definitions().map((tool) => tool.name)).toContain(DOCS_ECHO);
    },
  );
});
