/**
 * README error table: `engine_unavailable`, "the requested search engine is not available". grep
 * configured with `engine: "ripgrep"` in a workspace that holds every `rg` on the machine (the
 * workspace is `/usr`: a copy inside the workspace is one the model may have written, so it is
 * never trusted) has no ripgrep to run: the call is refused rather than searched by another engine
 * the host did not choose. Controls: the same tool over a workspace outside `/usr` searches with
 * ripgrep, and `engine: "auto"` in `/usr` falls back to the JavaScript engine.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findTrustedExecutable } from "../../src/tools/sandbox/trusted-executable.js";
import { capability } from "../support/capabilities.js";

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-claims-engine-"));
  await writeFile(path.join(workspace, "a.txt"), "needle\n");
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

const grepIn = (root: string, engine: "ripgrep" | "auto") =>
  createRegistry({ tools: [createGrepTool({ root, engine })] }).createRun({ profile: "full" });

const ripgrep = capability("ripgrep");
// The premise: every trusted rg here lies under /usr (a host with one in /opt would find it).
const onlyUnderUsr = findTrustedExecutable("rg", { untrustedRoots: ["/usr"] }).ok === false;

describe.skipIf(ripgrep.missing || !onlyUnderUsr)(ripgrep.label("grep with engine: ripgrep and no ripgrep it may run"), () => {
  it("answers engine_unavailable instead of searching with another engine", async () => {
    const refused = await grepIn("/usr", "ripgrep").call("grep", { pattern: "zz-claims-no-such-text", path: "bin/rg" });
    expect(code(refused)).toBe("engine_unavailable");
    // Control: auto may fall back, and names the engine it used.
    const fallback = await grepIn("/usr", "auto").call("grep", { pattern: "zz-claims-no-such-text", path: "bin/rg" });
    expect(code(fallback)).toBe("ok");
  });

  it("control: the same tool over a workspace outside /usr searches with ripgrep", async () => {
    const found = await grepIn(workspace, "ripgrep").call("grep", { pattern: "needle" });
    expect(code(found)).toBe("ok");
    expect(JSON.stringify(found)).toContain("a.txt");
    expect(JSON.stringify(found)).toMatch(/ripgrep/);
  });
});
