import { describe, expect, it } from "vitest";
import { isAllowedMcpUrl } from "./connect-mcp-tool.js";

describe("isAllowedMcpUrl", () => {
  const allowed = ["https://mcp.example.com/v1", "http://127.0.0.1:8080", /^https:\/\/[a-z]+\.trusted\.test\/mcp$/];
  it.each([
    ["https://mcp.example.com/v1", true],
    ["https://mcp.example.com/v1/tools", true],
    ["https://mcp.example.com/v10", false],
    ["https://mcp.example.com/", false],
    ["https://mcp.example.com.evil.test/v1", false],
    ["http://mcp.example.com/v1", false],
    ["http://127.0.0.1:8080/anything", true],
    ["http://127.0.0.1:8081/", false],
    ["https://team.trusted.test/mcp", true],
    ["https://team.trusted.test/mcp/x", false],
  ])("%s → %s", (url, expected) => {
    expect(isAllowedMcpUrl(new URL(url), allowed)).toBe(expected);
  });
});
