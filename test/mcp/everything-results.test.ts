import { fileURLToPath } from "node:url";
import { createRegistry, type Registry, type Run } from "agent-tool-catalog";
import { connectMcpServer, type McpStdioServerConfig } from "agent-tool-catalog/mcp";
import { afterEach, describe, expect, it } from "vitest";

// Results of the reference "everything" server from npm, as the model gets them: resource links,
// embedded resources, annotated content with an image, and the server's tool annotations.
const everythingBin = fileURLToPath(
  new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url),
);
const everything = (name: string, trusted: boolean): McpStdioServerConfig => ({
  name,
  command: process.execPath,
  args: [everythingBin, "stdio"],
  trusted,
  connectTimeoutMs: 20_000,
});

let registry: Registry;
afterEach(async () => {
  await registry.close();
});

async function call(run: Run, name: string, input: object) {
  run.activate([name]);
  return run.call(name, input);
}

describe("@modelcontextprotocol/server-everything results", () => {
  it("resource_link, embedded resources and annotated images reach the model; initialize negotiated", async () => {
    registry = createRegistry();
    const handle = await connectMcpServer(registry, everything("ev", true));
    expect(handle.status.state).toBe("connected");
    expect(handle.status.serverInfo?.name).toBeTruthy();
    const run = registry.createRun();

    const links = await call(run, "mcp_ev_get_resource_links", { count: 2 });
    expect(links.ok).toBe(true);
    expect(links.ok && String(links.output)).toMatch(/\[resource link [^\]]*demo:\/\/resource\/dynamic\/blob\/1/);

    const embedded = await call(run, "mcp_ev_get_resource_reference", { resourceType: "Text", resourceId: 1 });
    expect(embedded.ok && String(embedded.output)).toContain("demo://resource/dynamic/text/1");
    expect(embedded.ok && String(embedded.output)).toContain("This is a plaintext resource");

    const annotated = await call(run, "mcp_ev_get_annotated_message", { messageType: "error", includeImage: true });
    expect(annotated.ok).toBe(true);
    if (!annotated.ok) return;
    expect(annotated.content?.map((part) => part.type)).toEqual(["text", "image"]);
    expect(String(annotated.output)).toContain("Error: Operation failed");
  }, 40_000);

  it("copies a trusted server's readOnlyHint (no approval needed); an untrusted server's hints are dropped", async () => {
    registry = createRegistry();
    await connectMcpServer(registry, everything("trusted", true));
    await connectMcpServer(registry, everything("untrusted", false));
    expect(registry.get("mcp_trusted_get_sum")).toMatchObject({ mutating: false, annotations: { readOnlyHint: true } });
    const untrusted = registry.get("mcp_untrusted_get_sum");
    expect(untrusted?.mutating).toBe(true);
    expect(untrusted?.annotations?.readOnlyHint).toBeUndefined();
  }, 40_000);
});
