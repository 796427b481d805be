import { expect, it } from "vitest";
import { main } from "./ai-sdk-harness.js";

it("runs the AI SDK harness: find_tool mid-loop, an approved write in the sandbox", async () => {
  const saved = process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  try {
    const lines: string[] = [];
    const result = await main((line) => lines.push(line));
    expect(lines[0]).toMatch(/^index sent after the system prompt:\n# Additional tools\n[\s\S]*- glob: /);
    expect(lines.find((line) => line.startsWith("tool call:"))).toContain("tool call: find_tool");
    expect(lines).toContain('tool call: changelog_entry {"kind":"Added","text":"A harness example."} (kind Added)');
    expect(result.changelog).toBe("# Changelog\n\n### Added\n- A harness example.\n");
    expect(result.approvals).toEqual(["write"]);
    expect(result.text).toBe("Wrote CHANGELOG.md.");
  } finally {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
  }
});
