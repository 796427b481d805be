import { ConfigurationError } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import type { McpServerConfig } from "./mcp-server-config.js";
import { resolveMcpServerConfig } from "./resolve-mcp-server-config.js";

describe("resolveMcpServerConfig", () => {
  it("fills in the defaults and picks the transport", () => {
    expect(resolveMcpServerConfig({ name: "a", command: "node" })).toMatchObject({
      kind: "stdio",
      trusted: false,
      timeoutMs: 60_000,
      connectTimeoutMs: 30_000,
      schemaTimeoutMs: 5_000,
      maxOutputBytes: 100_000,
    });
    expect(resolveMcpServerConfig({ name: "b", url: "https://x.test/mcp" }).kind).toBe("http");
    expect(resolveMcpServerConfig({ name: "c", url: "https://x.test/sse", transport: "sse", trusted: true })).toMatchObject({
      kind: "sse",
      trusted: true,
    });
  });

  it.each<[string, unknown, RegExp]>([
    ["no name", { command: "node" }, /name must be a non-empty string/],
    ["two ways in", { name: "a", command: "node", url: "https://x.test" }, /exactly one way/],
    ["no way in", { name: "a" }, /exactly one way/],
    ["a bad URL", { name: "a", url: "not a url" }, /url is not a URL/],
    ["a file URL", { name: "a", url: "file:///etc/passwd" }, /must be http: or https:/],
    ["bad args", { name: "a", command: "node", args: [1] }, /args must be an array of strings/],
    ["bad env", { name: "a", command: "node", env: { A: 1 } }, /env must map names to strings/],
    ["a zero timeout", { name: "a", command: "node", timeoutMs: 0 }, /timeoutMs must be a positive number/],
    ["a zero schema timeout", { name: "a", command: "node", schemaTimeoutMs: 0 }, /schemaTimeoutMs must be a positive number/],
    ["an unknown transport", { name: "a", url: "https://x.test", transport: "ws" }, /transport must be "http" or "sse"/],
  ])("refuses %s", (_label, config, message) => {
    expect(() => resolveMcpServerConfig(config as McpServerConfig)).toThrowError(ConfigurationError);
    expect(() => resolveMcpServerConfig(config as McpServerConfig)).toThrowError(message);
  });
});
