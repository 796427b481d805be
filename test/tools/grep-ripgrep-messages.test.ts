// grep's ripgrep engine kept only its "could not read" lines of rg's error output: an ignore file
// rg could not parse (so did not apply) was dropped, and a bad pattern's explanation was cut to its
// first line ("regex parse error:"). Compared with what `rg` prints for the same tree.
import { spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type ToolCallResult } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGrepTool } from "../../src/tools/fs/grep-tool.js";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe.skipIf(ripgrep.missing)(ripgrep.label("grep reports rg's other messages whole"), () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "atc-rg-messages-"));
    await writeFile(path.join(root, "a.txt"), "needle\n");
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const grep = (input: Record<string, unknown>): Promise<ToolCallResult> =>
    createRegistry({ tools: [createGrepTool()] })
      .createRun({ profile: "full", permissions: { sandbox: "unrestricted", workspace: root }, environment: {} })
      .call("grep", input);
  const text = (result: ToolCallResult) => {
    if (!result.ok) throw new Error(JSON.stringify(result.error));
    return String(result.output);
  };

  it("an ignore file rg could not parse is named in the answer, with rg's whole message", async () => {
    await writeFile(path.join(root, ".ignore"), "[\n");
    const printed = spawnSync("rg", ["--no-config", "--hidden", "--regexp", "needle", "--", "."], {
      cwd: root,
      encoding: "utf8",
    });
    const rgMessage = printed.stderr.trim().replace(/^rg: /, "");
    expect(rgMessage).toContain("error parsing glob");
    const output = text(await grep({ pattern: "needle" }));
    expect(output).toContain("a.txt");
    expect(output).toContain(`[ripgrep: ${rgMessage}]`);
    expect(output).toMatch(/\[engine: ripgrep/);
    // positive control: a well-formed ignore file leaves no message
    await writeFile(path.join(root, ".ignore"), "*.log\n");
    const clean = text(await grep({ pattern: "needle" }));
    expect(clean).toContain("a.txt");
    expect(clean).not.toContain("[ripgrep:");
  });

  it("a pattern rg refuses falls back with rg's whole explanation, not its first line", async () => {
    const printed = spawnSync("rg", ["--no-config", "--regexp", "n(?=e)", "--", "."], { cwd: root, encoding: "utf8" });
    expect(printed.status).toBe(2);
    const output = text(await grep({ pattern: "n(?=e)" }));
    expect(output).toContain("a.txt");
    const engine = output.split("\n").at(-1) as string;
    expect(engine).toMatch(/^\[engine: javascript worker \(ripgrep does not accept this pattern: /);
    expect(engine).toContain("look-around, including look-ahead and look-behind, is not supported");
  });
});
