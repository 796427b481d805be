import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { TOOL_NAME_PATTERN } from "agent-tool-catalog";
import { describe, expect, it } from "vitest";
import { mcpToolName, sanitizeMcpNamePart } from "./mcp-tool-name.js";

describe("mcpToolName", () => {
  it("follows the spec: mcp_<server>_<tool>, lower-case, - / . and space to _", () => {
    expect(mcpToolName("filesystem", "read_file")).toBe("mcp_filesystem_read_file");
    expect(mcpToolName("My Server/v2", "Read-File.v1")).toBe("mcp_my_server_v2_read_file_v1");
    expect(mcpToolName("h", "café crème")).toBe("mcp_h_cafe_creme");
    expect(sanitizeMcpNamePart("A-b/c.d e")).toBe("a_b_c_d_e");
  });

  it("keeps names equal that the spec's rule makes equal: that collision is the caller's to report", () => {
    expect(mcpToolName("s", "Read-File")).toBe(mcpToolName("s", "read.file"));
  });

  it("adds a hash when other characters are replaced, so unicode names stay apart", () => {
    const japanese = mcpToolName("s", "日本語");
    const chinese = mcpToolName("s", "中文字");
    expect(japanese).not.toBe(chinese);
    expect(japanese).toMatch(/^mcp_s____[_]?[0-9a-f]{10}$/);
    expect(mcpToolName("s", "a:b")).toMatch(/^mcp_s_a_b_[0-9a-f]{10}$/);
  });

  it("shortens names over 64 characters with a stable hash; long names sharing a prefix differ", () => {
    const a = mcpToolName("fix", `${"a".repeat(199)}1`);
    const b = mcpToolName("fix", `${"a".repeat(199)}2`);
    expect(a).toHaveLength(64);
    expect(a).not.toBe(b);
    expect(a).toBe("mcp_fix_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa_6808c0ee56");
    expect(mcpToolName("github", "x".repeat(200))).toBe("mcp_github_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx_a1af6b4772");
  });

  it("gives the same name in another process", () => {
    const module = fileURLToPath(new URL("./mcp-tool-name.ts", import.meta.url));
    const script = `import { mcpToolName } from ${JSON.stringify(module)}; console.log(mcpToolName("github", "x".repeat(200)), mcpToolName("s", "日本語"));`;
    const output = execFileSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(output.trim()).toBe(`${mcpToolName("github", "x".repeat(200))} ${mcpToolName("s", "日本語")}`);
  });

  it("always gives a valid tool name", () => {
    const hostile = ["", " ", "💥", "a".repeat(500), "\u0000\n\t", "constructor", "__proto__", "ｆｕｌｌｗｉｄｔｈ", "Ω≈ç√"];
    for (const server of ["s", "", "Server Name With Spaces And A Lot Of Length To It", "☃"]) {
      for (const tool of hostile) expect(mcpToolName(server, tool)).toMatch(TOOL_NAME_PATTERN);
    }
  });
});
