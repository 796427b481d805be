// Fault round (stop 38): `download` made the missing directories of `file_path` before the body
// came, outside the change that writes the file. A download that then failed (over max_bytes, a
// full disk, a timeout) answered "Nothing was saved." / "Nothing was changed." and left those
// directories; a download that succeeded was undone without them. The change now makes them, so a
// failure removes them again and the journal names them for undo.
import { execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDownloadTool } from "../../src/tools/fs/download-tool.js";
import { failure, okText } from "../support/call-results.js";
import { closeServer } from "../support/close-server.js";
import { settleWithin } from "../support/settle-within.js";

const isRoot = process.getuid?.() === 0;
const SANDBOXES = ["workspace", "unrestricted"] as const;

/** Over the 64 MiB edit limit (EDIT_MAX_BYTES), well under download's 1 GiB max_bytes. */
const HUGE_BYTES = 200 * 1024 * 1024;

/** Streams `total` bytes in 1 MiB chunks, without a content-length, honouring backpressure. */
function streamBytes(response: ServerResponse, total: number): void {
  const chunk = Buffer.alloc(1024 * 1024, 66);
  let left = total;
  const pump = () => {
    while (left > 0) {
      left -= chunk.length;
      if (!response.write(chunk)) return void response.once("drain", pump);
    }
    response.end();
  };
  pump();
}

let server: Server;
let base: string;
/** The server's side of the connections of `/unfinished/<status>` requests. */
const opened: Socket[] = [];
beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url?.startsWith("/unfinished/")) {
      // Declares its length, sends a part and stops: a client must close what it does not read.
      opened.push(request.socket);
      response.writeHead(Number(request.url.slice("/unfinished/".length)), { "content-length": 400_000 });
      response.write(Buffer.alloc(1024, 67));
    } else if (request.url === "/big") response.end(Buffer.alloc(400_000, 65));
    else if (request.url === "/huge") streamBytes(response, HUGE_BYTES);
    else response.end("small body");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => closeServer(server));

let workspace: string;
let mounted = false;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-download-faults-"));
});
afterEach(async () => {
  if (mounted) execFileSync("umount", [workspace]);
  mounted = false;
  await rm(workspace, { recursive: true, force: true });
});

function runIn(sandbox: (typeof SANDBOXES)[number]): Run {
  // The workspace scope refuses private addresses unless asked: the test server is on 127.0.0.1.
  const tools = [
    ...createFileTools().filter((tool) => tool.name !== "download"),
    createDownloadTool({ allowPrivateNetwork: true }),
  ];
  return createRegistry({ tools }).createRun({
    profile: "full",
    permissions: { sandbox, workspace },
  });
}
const entries = async () => (await readdir(workspace, { recursive: true })).sort();

describe("a download leaves no directory it made", () => {
  for (const sandbox of SANDBOXES) {
    it(`${sandbox}: over max_bytes into new directories: too_large, nothing left; control: a small one saves, undo removes file and directories`, async () => {
      const run = runIn(sandbox);
      const error = failure(await run.call("download", { url: `${base}/big`, file_path: "n1/n2/big.bin", max_bytes: 150_000 }));
      expect(error.code).toBe("too_large");
      expect(error.message).toContain("Nothing was saved.");
      expect(await entries()).toEqual([]);
      // Control: the same directories are made for a download that succeeds, and undone with it.
      okText(await run.call("download", { url: `${base}/small`, file_path: "n1/n2/small.txt" }));
      expect(await readFile(path.join(workspace, "n1/n2/small.txt"), "utf8")).toBe("small body");
      expect(okText(await run.call("undo", {}))).toBe("Undid download #1: n1/n2/small.txt");
      expect(await entries()).toEqual([]);
    });
  }
});

// Stop 47: a download refused before its body was read (a declared length over max_bytes, an HTTP
// error status) left the response unread, paused on its connection, which stayed open for as long
// as the host ran: one connection and descriptor per refused call.
describe("a refused download closes its connection", () => {
  const closed = (socket: Socket) =>
    socket.destroyed
      ? Promise.resolve(true)
      : settleWithin(new Promise<boolean>((resolve) => socket.once("close", () => resolve(true))), 5_000, () => false);
  it.each([
    { status: 200, code: "too_large", max_bytes: 150_000 },
    { status: 404, code: "http_error", max_bytes: undefined },
  ])("answered $status, refused as $code: the server sees the connection closed", async ({ status, code, max_bytes }) => {
    opened.length = 0;
    const run = runIn("workspace");
    const error = failure(await run.call("download", { url: `${base}/unfinished/${status}`, file_path: "x.bin", max_bytes }));
    expect(error.code).toBe(code);
    expect(opened).toHaveLength(1);
    expect(await closed(opened[0] as Socket), "the server's side closed within 5 s").toBe(true);
    expect(await entries()).toEqual([]);
    // Control: the same server answers a download that fits, and it is saved.
    okText(await run.call("download", { url: `${base}/small`, file_path: "small.txt" }));
    expect(await readFile(path.join(workspace, "small.txt"), "utf8")).toBe("small body");
  });
});

describe.skipIf(!isRoot)("a download on a full disk (needs root to mount a tmpfs)", () => {
  for (const sandbox of SANDBOXES) {
    it(`${sandbox}: no_space, no directory made, an old file whole; control: with room the same download saves`, async () => {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=256k", "tmpfs", workspace]);
      mounted = true;
      await writeFile(path.join(workspace, "old.bin"), "old");
      const run = runIn(sandbox);
      for (const file_path of ["m1/m2/big.bin", "old.bin"]) {
        const error = failure(await run.call("download", { url: `${base}/big`, file_path }));
        expect(error.code, file_path).toBe("no_space");
        expect(error.message, file_path).not.toContain(workspace);
      }
      expect(await entries()).toEqual(["old.bin"]);
      expect(await readFile(path.join(workspace, "old.bin"), "utf8")).toBe("old");
      expect(failure(await run.call("undo", {})).code).toBe("nothing_to_undo");
      // Control: a body that fits is saved into the same new directories.
      okText(await run.call("download", { url: `${base}/small`, file_path: "m1/m2/big.bin" }));
      expect(await entries()).toEqual(["m1", "m1/m2", "m1/m2/big.bin", "old.bin"]);
    });
  }
});

// Round 19: a download was read back whole after it was saved, for the undo journal, however
// large (max_bytes goes to 1 GiB): 200 MiB in the host's memory, kept by the journal while the run
// lived. Over the 64 MiB edit limit it is no longer read back, as the other file tools never read
// such a file whole; undo, which refuses files that large, cannot take it back, and says so.
describe("a download over the edit limit", () => {
  it("is saved whole without being read back or journaled; control: one under it is journaled and undone", async () => {
    const run = runIn("workspace");
    const before = process.memoryUsage().rss;
    const saved = okText(
      await run.call("download", {
        url: `${base}/huge`,
        file_path: "huge.bin",
        max_bytes: 512 * 1024 * 1024,
        timeout_seconds: 120,
      }),
    );
    const grown = process.memoryUsage().rss - before;
    expect((await stat(path.join(workspace, "huge.bin"))).size).toBe(HUGE_BYTES);
    expect(saved).toContain("209715200 bytes");
    expect(saved).toContain("undo cannot take this download back");
    // The read-back alone was 200 MiB (and stayed, held by the journal).
    expect(grown).toBeLessThan(100 * 1024 * 1024);
    expect(failure(await run.call("undo", {})).code).toBe("nothing_to_undo");
    expect((await stat(path.join(workspace, "huge.bin"))).size).toBe(HUGE_BYTES);
    // Control: under the limit, the download is read back, journaled and undone.
    const small = okText(await run.call("download", { url: `${base}/big`, file_path: "big.bin" }));
    expect(small).not.toContain("undo cannot");
    expect(okText(await run.call("undo", {}))).toBe("Undid download #1: big.bin");
    expect(await entries()).toEqual(["huge.bin"]);
  }, 180_000);
});
