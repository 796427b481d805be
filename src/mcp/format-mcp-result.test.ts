import { ToolError } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { formatMcpResult } from "./format-mcp-result.js";

const source = { server: "s", tool: "t", maxOutputBytes: 1000 };

describe("formatMcpResult", () => {
  it("joins text blocks", () => {
    expect(
      formatMcpResult(
        {
          content: [
            { type: "text", text: "one" },
            { type: "text", text: "two" },
          ],
        },
        source,
      ),
    ).toBe("one\ntwo");
  });

  it("prefers structuredContent over the text that repeats it", () => {
    const result = { content: [{ type: "text" as const, text: "{...}" }], structuredContent: { a: 1 } };
    expect(formatMcpResult(result, source)).toBe('{"a":1}');
  });

  it("summarizes binary content and resource links instead of dumping them", () => {
    const output = formatMcpResult(
      {
        content: [
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///a.bin", blob: "AAAAAAAA", mimeType: "application/octet-stream" } },
          { type: "resource", resource: { uri: "file:///a.txt", text: "hello", mimeType: "text/plain" } },
          { type: "resource_link", uri: "file:///b", name: "b", mimeType: "text/plain", size: 10 },
        ],
      },
      source,
    );
    expect(output).toBe(
      [
        "[audio: audio/wav, 3 bytes, not shown]",
        "[resource file:///a.bin (application/octet-stream, 6 bytes of binary data, not shown)]",
        "[resource file:///a.txt (text/plain, 5 bytes)]\nhello",
        "[resource link b: file:///b (text/plain, 10 bytes)]",
      ].join("\n"),
    );
  });

  it("throws the server's text as mcp_tool_error for isError results", () => {
    const failing = () => formatMcpResult({ content: [{ type: "text", text: "permission denied" }], isError: true }, source);
    expect(failing).toThrowError(ToolError);
    expect(failing).toThrowError(/t \(MCP server "s"\) failed: permission denied/);
  });

  it("says so when there is no content, and cuts large output", () => {
    expect(formatMcpResult({ content: [] }, source)).toBe("(the tool returned no content)");
    expect(formatMcpResult({ content: [{ type: "text", text: "x".repeat(5000) }] }, source)).toContain("output cut");
  });
});
