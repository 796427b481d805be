import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFileTools } from "../../src/tools/index.js";

let workspace: string;

beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-patch-bytes-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function applyPatch(patch: string): Promise<string> {
  const run = createRegistry({ tools: createFileTools() }).createRun({
    profile: "full",
    permissions: { sandbox: "workspace", workspace },
  });
  const result = await run.call("apply_patch", { patch });
  return result.ok ? "ok" : result.error.message;
}

/** 10 KB of text lines: more than the binary check looks at (its first 8 KB). */
const FILLER = Array.from({ length: 200 }, (_, index) => `filler line ${index} ${"x".repeat(40)}`).join("\n");

describe("apply_patch changes only the bytes of the lines it changes", () => {
  it("keeps a byte that is not UTF-8 (a Latin-1 'é' past the first 8 KB) in a line the patch does not touch", async () => {
    const before = Buffer.concat([Buffer.from(`${FILLER}\ncaf`), Buffer.from([0xe9]), Buffer.from("\nold line\nend\n")]);
    await writeFile(path.join(workspace, "latin1.txt"), before);
    const patch = "--- a/latin1.txt\n+++ b/latin1.txt\n@@ -202,2 +202,2 @@\n-old line\n+new line\n end\n";
    expect(await applyPatch(patch)).toBe("ok");
    const expected = Buffer.concat([Buffer.from(`${FILLER}\ncaf`), Buffer.from([0xe9]), Buffer.from("\nnew line\nend\n")]);
    // Decoded and encoded again, the byte became U+FFFD (three bytes): the file was damaged.
    expect((await readFile(path.join(workspace, "latin1.txt"))).equals(expected)).toBe(true);
  });

  it("keeps a byte that is not UTF-8 in a context line of the hunk (the patch names it as U+FFFD)", async () => {
    const before = Buffer.concat([Buffer.from(`${FILLER}\ncaf`), Buffer.from([0xe9]), Buffer.from("\nold line\nend\n")]);
    await writeFile(path.join(workspace, "context.txt"), before);
    // The model saw the line decoded ("caf\ufffd") and copied it as context.
    const patch = "--- a/context.txt\n+++ b/context.txt\n@@ -201,3 +201,3 @@\n caf\ufffd\n-old line\n+new line\n end\n";
    expect(await applyPatch(patch)).toBe("ok");
    const expected = Buffer.concat([Buffer.from(`${FILLER}\ncaf`), Buffer.from([0xe9]), Buffer.from("\nnew line\nend\n")]);
    // A context line is the file's own bytes, not its decoded text encoded again (0xE9 became EF BF BD).
    expect((await readFile(path.join(workspace, "context.txt"))).equals(expected)).toBe(true);
  });

  it("control: a UTF-8 file with a BOM, CRLF endings and non-ASCII text is patched as before", async () => {
    await writeFile(path.join(workspace, "utf8.txt"), "\ufeffprémier\r\nold ✓\r\nlast 😀\r\n");
    const patch = "--- a/utf8.txt\n+++ b/utf8.txt\n@@ -1,3 +1,3 @@\n prémier\n-old ✓\n+new ✓\n last 😀\n";
    expect(await applyPatch(patch)).toBe("ok");
    expect(await readFile(path.join(workspace, "utf8.txt"), "utf8")).toBe("\ufeffprémier\r\nnew ✓\r\nlast 😀\r\n");
  });
});
