/**
 * JSON may carry a lone UTF-16 surrogate (`"s\ud800.txt"`); encoded, it became U+FFFD, so `write`
 * made `s\ufffd.txt` while reporting the name it was given, and `read` of such a path read a file
 * truly named with U+FFFD. A path holding one is now `invalid_path`, as one with a NUL byte is.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type SandboxScope } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-surrogate-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("a path holding a lone surrogate", () => {
  it.each(["workspace", "unrestricted"] as SandboxScope[])(
    "is invalid_path for every file tool, nothing written (%s)",
    async (sandbox) => {
      // The file a lossy encoding would reach: it must be neither read nor changed.
      await writeFile(path.join(workspace, "s\uFFFD.txt"), "real\n");
      const run = createRegistry({ tools: createFileTools({}) }).createRun({
        profile: "full",
        permissions: { sandbox, workspace },
      });
      for (const [tool, args] of [
        ["write", { path: "s\uD800.txt", content: "x" }],
        ["write", { path: "n\uDC00ew/f.txt", content: "x" }],
        ["read", { path: "s\uD800.txt" }],
        ["edit", { path: "s\uD800.txt", old_text: "real", new_text: "x" }],
        ["apply_patch", { patch: "*** Begin Patch\n*** Update File: s\uD800.txt\n@@\n-real\n+x\n*** End Patch" }],
        ["apply_patch", { patch: "*** Begin Patch\n*** Add File: a\uD800.txt\n+x\n*** End Patch" }],
        ["ls", { path: "s\uD800.txt" }],
      ] as const) {
        const result = await run.call(tool, args);
        expect(result.ok, `${tool} ${JSON.stringify(args)}`).toBe(false);
        if (result.ok) continue;
        expect(result.error.code, tool).toBe("invalid_path");
      }
      expect(await readFile(path.join(workspace, "s\uFFFD.txt"), "utf8")).toBe("real\n");
      expect(await readdir(workspace)).toEqual(["s\uFFFD.txt"]);
      // Controls: a well-formed pair (an emoji) and U+FFFD itself are ordinary text.
      expect((await run.call("write", { path: "\uD83D\uDE00.txt", content: "x" })).ok).toBe(true);
      expect((await run.call("read", { path: "s\uFFFD.txt" })).ok).toBe(true);
      expect((await readdir(workspace)).sort()).toEqual(["s\uFFFD.txt", "\uD83D\uDE00.txt"].sort());
    },
  );
});
