/**
 * README error table: `download_failed`, "the download failed", and the file tools' promise that a
 * download "leaves nothing on error". A real HTTP server on 127.0.0.1 cuts the connection after
 * part of the body, or redirects for ever: the call answers `download_failed` ("Nothing was
 * saved."), the file already at the path is whole, no directory it would have made is left, and
 * there is nothing to undo. Control: the same call to a URL that answers saves the file.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDownloadTool } from "../../src/tools/fs/download-tool.js";
import { closeServer } from "../support/close-server.js";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === "/cut") {
      // Promises 400,000 bytes, sends 64 KiB, then the connection is gone.
      response.writeHead(200, { "content-length": 400_000 });
      response.write(Buffer.alloc(65_536, 67), () => request.socket.destroy());
    } else if (request.url?.startsWith("/loop/")) {
      response.writeHead(302, { location: `/loop/${Number(request.url.slice(6)) + 1}` }).end();
    } else response.end("whole body");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-download-"));
  await writeFile(path.join(workspace, "kept.bin"), "old content\n");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

function run() {
  // The test server is on 127.0.0.1, which the workspace scope refuses unless asked.
  const tools = [
    ...createFileTools().filter((tool) => tool.name !== "download"),
    createDownloadTool({ allowPrivateNetwork: true }),
  ];
  return createRegistry({ tools }).createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } });
}

describe("a download that fails on the way", () => {
  it.each([
    ["the connection cut mid-body", "/cut"],
    ["a redirect loop", "/loop/0"],
  ])("%s: download_failed, the old file whole, no directory made, nothing to undo", async (_, route) => {
    const session = run();
    for (const file_path of ["kept.bin", "new/dir/file.bin"]) {
      const failed = await session.call("download", { url: `${base}${route}`, file_path });
      expect(code(failed), `${file_path}: ${JSON.stringify(failed)}`).toBe("download_failed");
      expect(!failed.ok && failed.error.message).toContain("Nothing was saved.");
    }
    expect(await readFile(path.join(workspace, "kept.bin"), "utf8")).toBe("old content\n");
    expect((await readdir(workspace)).sort()).toEqual(["kept.bin"]);
    expect(code(await session.call("undo", {}))).toBe("nothing_to_undo");
  });

  it("control: a URL that answers is saved, over the old file and into new directories", async () => {
    const session = run();
    expect(code(await session.call("download", { url: `${base}/whole`, file_path: "kept.bin" }))).toBe("ok");
    expect(code(await session.call("download", { url: `${base}/whole`, file_path: "new/dir/file.bin" }))).toBe("ok");
    expect(await readFile(path.join(workspace, "kept.bin"), "utf8")).toBe("whole body");
    expect(await readFile(path.join(workspace, "new/dir/file.bin"), "utf8")).toBe("whole body");
  });
});
