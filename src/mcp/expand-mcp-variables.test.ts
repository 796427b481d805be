// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are .mcp.json text with ${VAR} references, not templates.
import { describe, expect, it } from "vitest";
import { parseMcpJson } from "./parse-mcp-json.js";

const file = JSON.stringify({
  mcpServers: {
    api: { url: "https://${HOST}/mcp", headers: { Authorization: "Bearer ${TOKEN}" } },
    local: { command: "${BIN:-npx}", args: ["-y", "pkg@${VERSION:-latest}"], env: { KEY: "${TOKEN}" } },
  },
});

describe("${VAR} expansion in .mcp.json", () => {
  it("expands from the env the host passes, with ${VAR:-default} defaults", () => {
    const servers = parseMcpJson(file, {
      baseDirectory: "/w",
      source: "/w/.mcp.json",
      env: { HOST: "mcp.example.com", TOKEN: "t0k" },
    });
    expect(servers[0]).toMatchObject({ url: "https://mcp.example.com/mcp", headers: { Authorization: "Bearer t0k" } });
    expect(servers[1]).toMatchObject({ command: "npx", args: ["-y", "pkg@latest"], env: { KEY: "t0k" } });
  });

  it("never reads process.env: without env, references stay as written", () => {
    process.env.TOKEN_FROM_PROCESS = "leak";
    const servers = parseMcpJson(JSON.stringify({ mcpServers: { a: { url: "https://h/${TOKEN_FROM_PROCESS}" } } }), {
      baseDirectory: "/w",
      source: "/w/.mcp.json",
    });
    expect(servers[0]).toMatchObject({ url: "https://h/${TOKEN_FROM_PROCESS}" });
    // With an env that lacks it, it is missing: process.env is not a fallback.
    expect(() =>
      parseMcpJson(JSON.stringify({ mcpServers: { a: { url: "https://h/${TOKEN_FROM_PROCESS}" } } }), {
        baseDirectory: "/w",
        source: "/w/.mcp.json",
        env: {},
      }),
    ).toThrowError(expect.objectContaining({ code: "mcp_variable_missing" }));
    delete process.env.TOKEN_FROM_PROCESS;
  });

  it("fails with mcp_variable_missing naming the variable and the field", () => {
    let error: unknown;
    try {
      parseMcpJson(file, { baseDirectory: "/w", source: "/w/.mcp.json", env: { HOST: "h" } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({
      code: "mcp_variable_missing",
      data: { variable: "TOKEN", field: "mcpServers.api.headers.Authorization", path: "/w/.mcp.json" },
    });
  });
});
