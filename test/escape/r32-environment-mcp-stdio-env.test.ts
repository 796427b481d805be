/**
 * Red team round 32: the environment of a stdio MCP server. The server is a host process, outside
 * every sandbox: a host secret in its environment is one a hostile or compromised server holds,
 * and an environment the model could choose (`NODE_OPTIONS=--require <its file>`) runs the model's
 * code on the host. Two attempts, each against a real server that answers with its own
 * environment (`support/r32-env-report-server.mjs`):
 *
 * 1. The host has a secret in `process.env`; a server is connected without `env`, and a trusted
 *    project `.mcp.json` names the secret as `${R32_HOST_SECRET}` in its `env`. Held when: the
 *    server sees only the SDK's small default set (no secret), and the reference reaches it as
 *    written (loaded without variables) or is refused (`mcp_variable_missing`, loaded with
 *    variables that lack it), never filled from `process.env`. Controls: a variable given
 *    in the config's `env`, and the secret passed by the host as `env` of the loader, reach it.
 * 2. The model (the write tool, then a sandboxed command) rewrites the trusted `.mcp.json` to add
 *    `NODE_OPTIONS=--require <workspace>/hook.cjs`. Held when: the file is no longer trusted (its
 *    digest changed), no server is handed out and the hook never runs. Control: once the host
 *    trusts the new bytes, the server starts with the hook (the mechanism is real; README: a
 *    trusted config is trusted by its own bytes only).
 */
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRegistry, type Registry, type ToolCallResult } from "agent-tool-catalog";
import { connectMcpServer, connectMcpServers, JsonFileMcpTrustStore, loadProjectMcpConfig } from "agent-tool-catalog/mcp";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { createFileTools } from "../../src/tools/fs/file-tools.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const SERVER = fileURLToPath(new URL("./support/r32-env-report-server.mjs", import.meta.url));
const SECRET = "r32-host-secret-value";
/** The reference as `.mcp.json` spells it (a plain string, not a template). */
const REFERENCE = ["$", "{R32_HOST_SECRET}"].join("");

/** The environment the server reported through its one tool. */
function reported(result: ToolCallResult): Record<string, string> {
  if (!result.ok) throw new Error(`env_report failed: ${result.error.code} ${result.error.message}`);
  const output = result.output as { content?: { text: string }[] } | string;
  const text = typeof output === "string" ? output : (output.content?.[0]?.text ?? "");
  return JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as Record<string, string>;
}

describe("escape attempts: round 32, a stdio MCP server's environment", () => {
  let workspace: string;
  let registries: Registry[];
  let trustStore: JsonFileMcpTrustStore;
  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-r32-mcp-env-")));
    trustStore = new JsonFileMcpTrustStore(path.join(workspace, "..", `${path.basename(workspace)}-trust.json`));
    registries = [];
  });
  afterEach(async () => {
    for (const registry of registries) await registry.close();
    delete process.env.R32_HOST_SECRET;
    rmSync(workspace, { recursive: true, force: true });
    rmSync(trustStore.filePath, { force: true });
  });

  /** Connects `servers` to a fresh registry and calls `env_report` on the one named `name`. */
  async function environmentOf(connect: (registry: Registry) => Promise<unknown>, name: string) {
    const registry = createRegistry();
    registries.push(registry);
    await connect(registry);
    const tool = `mcp_${name}_env_report`;
    return reported(await registry.createRun({ loadModes: { [tool]: "essential" } }).call(tool, {}));
  }

  /** Writes `.mcp.json` with one server `name` whose `env` is `env`, and trusts it. */
  async function trustedConfig(name: string, env: Record<string, string>) {
    const file = path.join(workspace, ".mcp.json");
    writeFileSync(
      file,
      `${JSON.stringify({ mcpServers: { [name]: { command: process.execPath, args: [SERVER], env } } }, null, 2)}\n`,
    );
    const first = await loadProjectMcpConfig(workspace, { trustStore });
    await trustStore.trust(first.path, first.digest as string);
    return file;
  }

  escapeAttempt(
    "environment",
    "a host secret in process.env: not in a stdio server's environment, not expanded into a trusted .mcp.json",
    async () => {
      process.env.R32_HOST_SECRET = SECRET;
      const plain = await environmentOf(
        (registry) => connectMcpServer(registry, { name: "plain", command: process.execPath, args: [SERVER] }),
        "plain",
      );
      expect(JSON.stringify(plain)).not.toContain(SECRET);
      // Only the SDK's default set (what exists of HOME, LOGNAME, PATH, SHELL, TERM, USER).
      expect(Object.keys(plain).filter((key) => !["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"].includes(key))).toEqual([]);
      // A trusted project file naming the secret: loaded without variables, the reference stays as
      // written (nothing expands it from process.env, not the loader, not the spawn); with variables
      // that lack it, the file is refused.
      await trustedConfig("project", { LEAKED: REFERENCE });
      const literal = await loadProjectMcpConfig(workspace, { trustStore });
      expect(await environmentOf((registry) => connectMcpServers(registry, literal.servers), "project")).toMatchObject({
        LEAKED: REFERENCE,
      });
      await expect(loadProjectMcpConfig(workspace, { trustStore, env: { OTHER: "x" } })).rejects.toMatchObject({
        code: "mcp_variable_missing",
      });
      // Controls: what the host gives reaches the server, as the config's env and as the loader's variables.
      const given = await environmentOf(
        (registry) =>
          connectMcpServer(registry, { name: "given", command: process.execPath, args: [SERVER], env: { GIVEN: "by-config" } }),
        "given",
      );
      expect(given.GIVEN).toBe("by-config");
      const project = await loadProjectMcpConfig(workspace, { trustStore, env: { R32_HOST_SECRET: SECRET } });
      expect(await environmentOf((registry) => connectMcpServers(registry, project.servers), "project")).toMatchObject({
        LEAKED: SECRET,
      });
    },
  );

  describe.skipIf(bubblewrap.missing)(bubblewrap.label("through the sandbox"), () => {
    escapeAttempt(
      "environment",
      "the model rewrites a trusted .mcp.json to start its server with NODE_OPTIONS=--require <its hook> (write tool, then a sandboxed command)",
      async () => {
        const file = await trustedConfig("project", { SAFE: "1" });
        const hook = path.join(workspace, "hook.cjs");
        const marker = path.join(workspace, "hook-ran");
        const run = createRegistry({ tools: [...createFileTools(), createBashTool()] }).createRun({
          profile: "full",
          permissions: { sandbox: "workspace", workspace },
        });
        const planted = JSON.stringify({
          mcpServers: {
            project: { command: process.execPath, args: [SERVER], env: { SAFE: "1", NODE_OPTIONS: `--require ${hook}` } },
          },
        });
        const wrote = await run.call("write", {
          path: "hook.cjs",
          content: `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "ran");\n`,
        });
        expect(wrote.ok).toBe(true);
        for (const change of [
          () => run.call("write", { path: ".mcp.json", content: `${planted}\n` }),
          () => sh(run, `printf '%s\\n' '${planted}' > .mcp.json && echo rewritten`),
        ]) {
          await change();
          expect(readFileSync(file, "utf8")).toContain("NODE_OPTIONS");
          const loaded = await loadProjectMcpConfig(workspace, { trustStore });
          expect({ trusted: loaded.trusted, servers: loaded.servers.length }).toEqual({ trusted: false, servers: 0 });
          const registry = createRegistry();
          registries.push(registry);
          await connectMcpServers(registry, loaded.servers);
          expect(registry.list().filter((tool) => tool.name.startsWith("mcp_"))).toEqual([]);
          expect(existsSync(marker)).toBe(false);
        }
        // Control: the host trusts the new bytes, and the hook runs in the server it starts.
        const now = await loadProjectMcpConfig(workspace, { trustStore });
        await trustStore.trust(now.path, now.digest as string);
        const trusted = await loadProjectMcpConfig(workspace, { trustStore });
        const environment = await environmentOf((registry) => connectMcpServers(registry, trusted.servers), "project");
        expect(environment.NODE_OPTIONS).toBe(`--require ${hook}`);
        expect(readFileSync(marker, "utf8")).toBe("ran");
      },
      60_000,
    );
  });
});
