import { describe, expect, it } from "vitest";
import { mcpToolName } from "../mcp/mcp-tool-name.js";
import { AllowedNames } from "./allowed-names.js";
import { allowEntryNames, DeniedNames, denyEntryNames, foldToolName } from "./fold-tool-name.js";

describe("tool list entries against registered names", () => {
  it("folds as MCP names are registered (NFC and NFD, case, separators, fullwidth)", () => {
    for (const entry of ["mcp_Café-Docs_echo", "mcp_Cafe\u0301-Docs_echo", "MCP_CAFE.DOCS_ECHO", "mcp_cafe docs_ｅｃｈｏ"]) {
      expect(foldToolName(entry), entry).toBe(mcpToolName("Café-Docs", "echo"));
    }
  });

  it("a deny entry covers every name folding alike and, when it would be hashed, every hashed name of its cut", () => {
    const server = `Docs-${"v".repeat(60)}`;
    const longEcho = mcpToolName(server, "echo");
    const longSum = mcpToolName(server, "get-sum");
    const lossy = mcpToolName("docs", "日本語");
    const denied = new DeniedNames([`mcp_${server}_echo`, "mcp_docs_write.file", "mcp_docs_日本語"]);
    for (const name of [longEcho, longSum, "mcp_docs_write_file", "mcp_docs_Write-File", lossy]) {
      expect(denied.denies(name), name).toBe(true);
      expect(
        [`mcp_${server}_echo`, "mcp_docs_write.file", "mcp_docs_日本語"].some((entry) => denyEntryNames(entry, name)),
        name,
      ).toBe(true);
    }
    // Controls: other names are not covered, also hashed ones of another cut.
    for (const name of [
      "mcp_docs_write_files",
      "mcp_docs_read_file",
      mcpToolName("docs", "中文x"),
      mcpToolName(`Other-${"v".repeat(60)}`, "echo"),
    ]) {
      expect(denied.denies(name), name).toBe(false);
    }
  });

  it("an allow entry matches a folded MCP name only: never a host name by case, a name not folded, or a hashed name", () => {
    const allowed = new AllowedNames(["mcp_Docs_Write-File", "HOST_CORE", `mcp_docs_${"x".repeat(60)}`]);
    expect(allowed.has("mcp_docs_write_file")).toBe(true);
    expect(allowEntryNames("mcp_Docs_Write-File", "mcp_docs_write_file")).toBe(true);
    for (const name of ["host_core", "mcp_docs_Write_File", "mcp_docs_Write-File", mcpToolName("docs", "x".repeat(60))]) {
      expect(allowed.has(name), name).toBe(false);
    }
    // Narrowing keeps an entry allowed only through its folded form as that form.
    expect(new AllowedNames(["mcp_docs_write_file"]).narrow(["mcp_Docs_Write-File", "mcp_docs_Write_File"])).toEqual([
      "mcp_docs_write_file",
    ]);
  });
});
