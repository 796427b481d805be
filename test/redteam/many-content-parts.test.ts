/**
 * Red team round 12: an MCP server whose result has 100,000 content parts. Each image is tiny, so
 * the byte budget (`maxBinaryBytes`, 5 MiB) let every one through: the model got 100,000 image
 * parts (5.5 MB of JSON), which no provider takes in one request and each of which costs tokens.
 * A result now carries at most `MAX_BINARY_PARTS` binary parts; the rest are counted in one line.
 */
import path from "node:path";
import { createRegistry, type Registry } from "agent-tool-catalog";
import { connectMcpServer } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

const SERVER = path.join(import.meta.dirname, "..", "mcp", "servers", "many-parts-server.mjs");
let registry: Registry;

afterEach(async () => {
  await registry.close();
});

async function connect() {
  registry = createRegistry();
  await connectMcpServer(registry, { name: "parts", command: process.execPath, args: [SERVER], timeoutMs: 20_000 });
  const run = registry.createRun();
  run.activate(["mcp_parts_many_images", "mcp_parts_three_images", "mcp_parts_garbage"]);
  return run;
}

describe("a hostile MCP result", () => {
  it("with 100,000 tiny images reaches the model with at most 20 of them and one line counting the rest", async () => {
    const run = await connect();
    const result = await run.call("mcp_parts_many_images", {});
    expect(result).toMatchObject({ ok: true });
    const content = (result as { content?: readonly { type: string; text?: string }[] }).content ?? [];
    expect(content.filter((part) => part.type === "image")).toHaveLength(20);
    expect(content.length).toBeLessThan(30);
    expect(content.at(-1)?.text).toMatch(/99980 more image and file parts omitted/);
    expect(JSON.stringify(result).length).toBeLessThan(300_000);
  }, 30_000);

  it("positive control: three images all reach the model as image parts", async () => {
    const run = await connect();
    const result = await run.call("mcp_parts_three_images", {});
    const content = (result as { content?: readonly { type: string }[] }).content ?? [];
    expect(content.map((part) => part.type)).toEqual(["text", "image", "image", "image"]);
  }, 30_000);

  it("held: lines that are not JSON-RPC on stdout between messages are skipped, and the call gets its answer", async () => {
    const run = await connect();
    expect(await run.call("mcp_parts_garbage", {})).toMatchObject({ ok: true, output: "after garbage" });
    expect(await run.call("mcp_parts_garbage", {})).toMatchObject({ ok: true, output: "after garbage" });
  }, 30_000);
});
