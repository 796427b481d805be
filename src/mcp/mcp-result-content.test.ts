import { isToolContent } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { mcpResultContent } from "./mcp-result-content.js";

const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const source = { server: "s", tool: "t", maxOutputBytes: 1000, maxBinaryBytes: 1000 };

describe("mcpResultContent", () => {
  it("stays plain text when the result has no binary content", () => {
    expect(mcpResultContent({ content: [{ type: "text", text: "hi" }] }, source)).toBe("hi");
  });

  it("turns images, audio and blob resources into parts, in order, with text between", () => {
    const result = mcpResultContent(
      {
        content: [
          { type: "text", text: "look:" },
          { type: "image", data: PIXEL, mimeType: "image/png" },
          { type: "audio", data: "AAAA", mimeType: "audio/wav" },
          { type: "resource", resource: { uri: "file:///tmp/report.pdf", mimeType: "application/pdf", blob: "JVBERg==" } },
          { type: "resource", resource: { uri: "notes://a", mimeType: "text/plain", text: "note" } },
        ],
      },
      source,
    );
    if (!isToolContent(result)) throw new Error("expected rich content");
    expect(result.parts).toEqual([
      { type: "text", text: "look:" },
      { type: "image", data: PIXEL, mediaType: "image/png" },
      { type: "file", data: "AAAA", mediaType: "audio/wav" },
      { type: "file", data: "JVBERg==", mediaType: "application/pdf", filename: "report.pdf" },
      { type: "text", text: "[resource notes://a (text/plain, 4 bytes)]\nnote" },
    ]);
    // The text fallback names every binary part.
    expect(result.output).toContain("[image: image/png, 70 bytes, not shown]");
    expect(result.output).toContain("[audio: audio/wav, 3 bytes, not shown]");
  });

  it("describes a binary block over the limit in text instead, and keeps the ones that fit", () => {
    const result = mcpResultContent(
      {
        content: [
          { type: "image", data: PIXEL, mimeType: "image/png" },
          { type: "image", data: PIXEL, mimeType: "image/png" },
        ],
      },
      { ...source, maxBinaryBytes: 100 },
    );
    if (!isToolContent(result)) throw new Error("expected rich content");
    expect(result.parts[0]).toMatchObject({ type: "image" });
    expect(result.parts[1]).toEqual({
      type: "text",
      text: "[image: image/png, 70 bytes, not shown] (over the 100-byte limit for binary content)",
    });
  });

  it("keeps results text-only with maxBinaryBytes 0, and treats broken base64 as text", () => {
    const image = { type: "image" as const, data: PIXEL, mimeType: "image/png" };
    expect(mcpResultContent({ content: [image] }, { ...source, maxBinaryBytes: 0 })).toBe(
      "[image: image/png, 70 bytes, not shown]",
    );
    const broken = mcpResultContent({ content: [{ type: "image", data: "%%%", mimeType: "image/png" }] }, source);
    expect(broken).toMatch(/^\[image: image\/png, \d+ bytes, not shown\]$/);
  });

  it("cuts the text parts to maxOutputBytes together", () => {
    const result = mcpResultContent(
      {
        content: [
          { type: "text", text: "a".repeat(5000) },
          { type: "image", data: PIXEL, mimeType: "image/png" },
        ],
      },
      source,
    );
    if (!isToolContent(result)) throw new Error("expected rich content");
    const first = result.parts[0];
    // The kept text is within the limit; the cut marker comes on top, as for text results.
    expect(first?.type === "text" && first.text).toContain("output cut: 5000 bytes in all");
    expect(first?.type === "text" && Buffer.byteLength(first.text)).toBeLessThanOrEqual(1000 + 200);
  });
});
