import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDownloadTool } from "../../src/tools/fs/download-tool.js";
import { createFileInspectTool } from "../../src/tools/fs/file-inspect-tool.js";
import { createGlobTool } from "../../src/tools/fs/glob-tool.js";
import { createGrepTool } from "../../src/tools/fs/grep-tool.js";
import { createLsTool } from "../../src/tools/fs/ls-tool.js";
import { createReadTool } from "../../src/tools/fs/read-tool.js";
import { createUndoTool } from "../../src/tools/fs/undo-tool.js";
import { createWriteTool } from "../../src/tools/fs/write-tool.js";
import { failure } from "../support/call-results.js";

let workspace: string;
let outside: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-fs-"));
  outside = await mkdtemp(path.join(tmpdir(), "atc-outside-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

function fileRun(sandbox: "workspace" | "unrestricted" = "workspace", redo = false): Run {
  const options = { redo };
  const tools = [
    createReadTool(options),
    createWriteTool(options),
    createUndoTool(options),
    createFileInspectTool(options),
    createLsTool(options),
    createGlobTool(options),
    createGrepTool(options),
    // The test server is on 127.0.0.1, which the workspace scope refuses unless the host allows it.
    createDownloadTool({ ...options, allowPrivateNetwork: true }),
  ];
  return createRegistry({ tools }).createRun({ profile: "full", permissions: { sandbox, workspace } });
}

function text(result: ToolCallResult): string {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
  return String(result.output);
}

/** grep's answer without its last line, which names the engine (ripgrep or JavaScript). */
function grepText(result: ToolCallResult): string {
  return text(result).replace(/\n\[engine: [^\n]*\]$/, "");
}

const versionIn = (output: string) => /v_[0-9a-f]{16}/.exec(output)?.[0] ?? "";

describe("read", () => {
  it("returns numbered lines and a version, honours offset and limit, accepts file_path", async () => {
    await writeFile(path.join(workspace, "a.txt"), "one\ntwo\nthree\n");
    const run = fileRun();
    const all = text(await run.call("read", { path: "a.txt" }));
    expect(all).toMatch(/^a\.txt · v_[0-9a-f]{16} · lines 1-3 of 3 · 14 bytes\n {5}1\tone\n {5}2\ttwo\n {5}3\tthree$/);
    const part = text(await run.call("read", { file_path: "a.txt", offset: 2, limit: 1 }));
    expect(part).toContain("     2\ttwo");
    expect(part).toContain("[more: continue with offset=3]");
    expect(failure(await run.call("read", {})).issues).toEqual([{ path: "path", message: "path (or file_path) is required" }]);
  });

  it("says unchanged on a repeated read, and returns content again after a change", async () => {
    await writeFile(path.join(workspace, "a.txt"), "one\n");
    const run = fileRun();
    text(await run.call("read", { path: "a.txt" }));
    expect(text(await run.call("read", { path: "a.txt" }))).toContain("unchanged since your last read");
    await writeFile(path.join(workspace, "a.txt"), "uno\n");
    expect(text(await run.call("read", { path: "a.txt" }))).toContain("uno");
  });

  it("cuts at max_bytes and refuses binary files and missing files clearly", async () => {
    await writeFile(path.join(workspace, "big.txt"), `${"x".repeat(100)}\n`.repeat(100));
    await writeFile(path.join(workspace, "bin.dat"), Buffer.from([0, 1, 2, 3]));
    const run = fileRun();
    const cut = text(await run.call("read", { path: "big.txt", max_bytes: 500 }));
    expect(cut).toContain("(cut at max_bytes=500)");
    expect(cut.split("\n").length).toBeLessThan(10);
    expect(failure(await run.call("read", { path: "bin.dat" })).code).toBe("binary_file");
    expect(failure(await run.call("read", { path: "nope.txt" }))).toMatchObject({ code: "file_not_found" });
    expect(failure(await run.call("read", { path: "big.txt", max_bytes: 2_000_000 })).code).toBe("invalid_input");
  });
});

describe("workspace sandbox for file tools", () => {
  it("refuses paths outside the workspace, symlinks out, and hard links", async () => {
    await writeFile(path.join(outside, "secret.txt"), "secret");
    await symlink(path.join(outside, "secret.txt"), path.join(workspace, "link.txt"));
    await symlink(outside, path.join(workspace, "dir-link"));
    const run = fileRun();
    expect(failure(await run.call("read", { path: path.join(outside, "secret.txt") })).code).toBe("path_outside_workspace");
    expect(failure(await run.call("read", { path: "../x" })).code).toBe("path_outside_workspace");
    expect(failure(await run.call("read", { path: "link.txt" })).code).toMatch(/symlink/);
    expect(failure(await run.call("write", { path: "dir-link/new.txt", content: "x" })).code).toMatch(/symlink/);
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    const grep = grepText(await run.call("grep", { pattern: "secret" }));
    expect(grep).toBe('No matches for "secret".');
  });

  it("lets unrestricted runs read anywhere", async () => {
    await writeFile(path.join(outside, "open.txt"), "open");
    expect(text(await fileRun("unrestricted").call("read", { path: path.join(outside, "open.txt") }))).toContain("open");
  });
});

describe("write with expected_version", () => {
  it("creates, replaces and appends atomically, keeping the mode", async () => {
    const run = fileRun();
    expect(text(await run.call("write", { path: "dir/new.txt", content: "hello" }))).toMatch(
      /^Created dir\/new\.txt \(5 bytes\)/,
    );
    await writeFile(path.join(workspace, "script.sh"), "#!/bin/sh\n");
    // Set explicitly: a create mode is cut by the umask (0o700 under umask 077).
    await chmod(path.join(workspace, "script.sh"), 0o755);
    text(await run.call("write", { path: "script.sh", content: "#!/bin/sh\necho hi\n" }));
    expect((await stat(path.join(workspace, "script.sh"))).mode & 0o777).toBe(0o755);
    text(await run.call("write", { path: "dir/new.txt", content: " world", append: true }));
    expect(await readFile(path.join(workspace, "dir/new.txt"), "utf8")).toBe("hello world");
    expect((await readdir(path.join(workspace, "dir"))).filter((name) => name.includes(".tmp") || name.startsWith("."))).toEqual(
      [],
    );
  });

  it("refuses a stale version and writes nothing", async () => {
    await writeFile(path.join(workspace, "a.txt"), "v1");
    const run = fileRun();
    const version = versionIn(text(await run.call("read", { path: "a.txt" })));
    await writeFile(path.join(workspace, "a.txt"), "changed by someone else");
    const error = failure(await run.call("write", { path: "a.txt", content: "mine", expected_version: version }));
    expect(error.code).toBe("version_conflict");
    expect(error.message).toContain("Nothing was written");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("changed by someone else");
    expect(failure(await run.call("write", { path: "a.txt", content: "x", expected_version: "v_absent" })).code).toBe(
      "version_conflict",
    );
  });

  it("loses no update when two writers race with the same version", async () => {
    await writeFile(path.join(workspace, "counter.txt"), "0");
    const run = fileRun();
    for (let round = 0; round < 20; round++) {
      const version = versionIn(text(await run.call("read", { path: "counter.txt" })));
      const current = Number(await readFile(path.join(workspace, "counter.txt"), "utf8"));
      const results = await Promise.all(
        ["a", "b"].map((writer) =>
          run.call("write", { path: "counter.txt", content: `${current + 1}${writer}`, expected_version: version }),
        ),
      );
      expect(results.filter((result) => result.ok)).toHaveLength(1);
      expect(results.filter((result) => !result.ok && result.error.code === "version_conflict")).toHaveLength(1);
      await writeFile(path.join(workspace, "counter.txt"), String(current + 1));
    }
  });
});

describe("undo", () => {
  it("undoes writes newest first and redoes them when enabled", async () => {
    await writeFile(path.join(workspace, "a.txt"), "original");
    const run = fileRun("workspace", true);
    text(await run.call("write", { path: "a.txt", content: "second" }));
    text(await run.call("write", { path: "b.txt", content: "new file" }));
    expect(text(await run.call("undo", {}))).toContain("Undid write #2: b.txt");
    await expect(stat(path.join(workspace, "b.txt"))).rejects.toThrow();
    text(await run.call("undo", {}));
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("original");
    expect(failure(await run.call("undo", {})).code).toBe("nothing_to_undo");
    text(await run.call("undo", { action: "redo", steps: 2 }));
    expect(await readFile(path.join(workspace, "b.txt"), "utf8")).toBe("new file");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("second");
  });

  it("refuses to undo over a change made by someone else, and redo unless enabled", async () => {
    const run = fileRun();
    text(await run.call("write", { path: "a.txt", content: "mine" }));
    await writeFile(path.join(workspace, "a.txt"), "theirs");
    expect(failure(await run.call("undo", {})).code).toBe("changed_since");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("theirs");
    expect(failure(await run.call("undo", { action: "redo" })).code).toBe("redo_disabled");
  });
});

describe("file_inspect, ls, glob, grep", () => {
  beforeEach(async () => {
    await mkdir(path.join(workspace, "src/nested"), { recursive: true });
    await mkdir(path.join(workspace, "node_modules/pkg"), { recursive: true });
    await writeFile(path.join(workspace, "src/a.ts"), "export const a = 1;\r\nexport const b = 2;\r\n");
    await writeFile(path.join(workspace, "src/nested/c.ts"), "const needle = 'x';\nline two\n");
    await writeFile(path.join(workspace, "node_modules/pkg/index.ts"), "const needle = 1;\n");
    await writeFile(path.join(workspace, ".hidden"), "h");
    await writeFile(path.join(workspace, "mixed.txt"), "a\r\nb\nc");
    await writeFile(path.join(workspace, "image.png"), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]));
  });

  it("file_inspect reports type, encoding, line endings and previews", async () => {
    const run = fileRun();
    const crlf = text(await run.call("file_inspect", { path: "src/a.ts", preview_lines: 1 }));
    expect(crlf).toContain("line endings: crlf");
    expect(crlf).toContain("preview (first 1 line):");
    expect(text(await run.call("file_inspect", { path: "mixed.txt" }))).toContain("line endings: mixed (lf 1, crlf 1, cr 0)");
    expect(text(await run.call("file_inspect", { path: "mixed.txt" }))).toContain("final newline: false");
    const png = text(await run.call("file_inspect", { path: "image.png", hex_bytes: 4 }));
    expect(png).toContain("type: image/png");
    expect(png).toContain("00000000  89 50 4e 47");
  });

  it("ls lists with kinds and hides dot files unless asked", async () => {
    const run = fileRun();
    const listing = text(await run.call("ls", {}));
    expect(listing.split("\n").slice(1)).toEqual(["image.png  10", "mixed.txt  6", "node_modules/", "src/"]);
    expect(text(await run.call("ls", { all: true, depth: 2, path: "src" }))).toContain("  c.ts");
    expect(failure(await run.call("ls", { path: "src/a.ts" })).code).toBe("not_a_directory");
  });

  it("glob matches patterns, skipping node_modules", async () => {
    const run = fileRun();
    expect(
      text(await run.call("glob", { pattern: "**/*.ts" }))
        .split("\n")
        .slice(1),
    ).toEqual(["src/a.ts", "src/nested/c.ts"]);
    expect(text(await run.call("glob", { pattern: "*.ts", include_ignored: true }))).toContain("node_modules/pkg/index.ts");
    expect(text(await run.call("glob", { pattern: "*.rs" }))).toMatch(/^No files match/);
  });

  it("grep finds lines with context, honours glob and refuses bad regexes", async () => {
    const run = fileRun();
    expect(grepText(await run.call("grep", { pattern: "needle" }))).toBe("src/nested/c.ts:1:const needle = 'x';");
    expect(grepText(await run.call("grep", { pattern: "NEEDLE", ignore_case: true, context: 1 }))).toBe(
      "src/nested/c.ts:1:const needle = 'x';\nsrc/nested/c.ts-2-line two",
    );
    expect(grepText(await run.call("grep", { pattern: "export", glob: "a.ts", files_only: true }))).toBe("src/a.ts");
    expect(text(await run.call("grep", { pattern: "const", max_results: 1 }))).toContain("[stopped at 1 result");
    expect(failure(await run.call("grep", { pattern: "(" })).code).toBe("invalid_pattern");
    expect(text(await run.call("grep", { pattern: "(", fixed_strings: true }))).toMatch(/^No matches/);
  });
});

describe("download", () => {
  let base = "";
  let close = () => {};
  beforeEach(async () => {
    const server = createServer((request, response) => {
      if (request.url === "/file") response.end("downloaded body");
      else if (request.url === "/big") {
        response.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 1);
        let sent = 0;
        const pump = () => {
          while (sent < 40 && response.write(chunk)) sent++;
          if (sent < 40) response.once("drain", pump);
          else response.end();
        };
        pump();
      } else if (request.url === "/slow") setTimeout(() => response.end("late"), 3000);
      else {
        response.writeHead(404);
        response.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => server.close();
  });
  afterEach(() => close());

  it("saves a URL and leaves nothing when it fails", async () => {
    const run = fileRun();
    expect(text(await run.call("download", { url: `${base}/file`, file_path: "out/file.txt" }))).toContain(
      "(HTTP 200, 15 bytes)",
    );
    expect(await readFile(path.join(workspace, "out/file.txt"), "utf8")).toBe("downloaded body");
    expect(failure(await run.call("download", { url: `${base}/big`, file_path: "big.bin", max_bytes: 100_000 })).code).toBe(
      "too_large",
    );
    expect(failure(await run.call("download", { url: `${base}/missing`, file_path: "m.txt" })).code).toBe("http_error");
    expect(failure(await run.call("download", { url: `${base}/slow`, file_path: "s.txt", timeout_seconds: 1 })).code).toBe(
      "timeout",
    );
    expect(failure(await run.call("download", { url: "file:///etc/passwd", file_path: "p.txt" })).code).toBe("unsupported_url");
    const names = await readdir(workspace);
    expect(names.sort()).toEqual(["out"]);
    expect(await readdir(path.join(workspace, "out"))).toEqual(["file.txt"]);
  });
});
