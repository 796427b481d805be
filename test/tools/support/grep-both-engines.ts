import { execFileSync } from "node:child_process";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";

/**
 * The match lines `rg --sort path` prints for `pattern` in `workspace` (what it printed whole, for
 * messages), and what grep with the JavaScript engine answers there (`false` when the call failed).
 */
export async function grepBothEngines(
  workspace: string,
  pattern: string,
): Promise<{ expected: string[]; actual: string[] | false; printed: string }> {
  let printed = "";
  try {
    printed = execFileSync(
      "rg",
      ["--no-config", "--sort", "path", "--line-number", "--with-filename", "--no-heading", "--regexp", pattern],
      { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    // rg exits 2 after a file it could not read, 1 on no match: what it printed still counts.
    printed = String((error as { stdout: string }).stdout);
  }
  const expected = printed.split("\n").filter((line) => /^[a-z-]+\.txt:\d+:/.test(line));
  const run = createRegistry({ tools: [createGrepTool({ engine: "javascript" })] }).createRun({
    profile: "full",
    permissions: { workspace, sandbox: "unrestricted" },
  });
  const result = await run.call("grep", { pattern });
  return { expected, actual: result.ok && String(result.output).split("\n").slice(0, -1), printed };
}
