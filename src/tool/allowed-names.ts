import { foldedMcpAlternative } from "./fold-tool-name.js";

/**
 * An allow list of tool names (`allowedTools`, a skill's `allowed-tools`), matched as
 * `allowEntryNames` (src/tool/fold-tool-name.ts) says: a name by its own spelling, and an MCP
 * name in folded form also by any entry that folds to it, so an MCP tool may be written as its
 * server spells it. An entry with a `*` is no glob here: it names only itself (allow lists fail
 * closed; see `isToolNameGlob`). The lookup is a set probe, not a scan of the entries.
 */
export class AllowedNames {
  /** The entries as given. */
  readonly names: ReadonlySet<string>;
  /** The MCP names entries name only by folding (`foldedMcpAlternative`). */
  private readonly alternatives: ReadonlySet<string>;

  constructor(names: Iterable<string>) {
    this.names = new Set(names);
    this.alternatives = new Set([...this.names].map(foldedMcpAlternative).filter((name) => name !== undefined));
  }

  /** True when an entry names `name` (see `allowEntryNames` (src/tool/fold-tool-name.ts)). */
  has(name: string): boolean {
    return this.names.has(name) || this.alternatives.has(name);
  }

  /**
   * The entries of `requested` this list allows too, for a child run's or a skill's narrower
   * list, matched as a top-level list matches names: an entry is kept when this list allows it as
   * written, or when it names an MCP tool in folded form (`foldedMcpAlternative`) that this list
   * allows; a host tool name stays exact (`BASH` under a list allowing `bash` is dropped, as a
   * top-level `allowedTools: ["BASH"]` allows nothing), so narrowing never allows more than the
   * child's own list would. An entry allowed only through its folded form is kept as that form:
   * kept as written it would also allow a tool registered under that exact spelling (a host tool
   * `mcp_docs_Write-File`), which this list does not allow.
   */
  narrow(requested: readonly string[]): string[] {
    const out = new Set<string>();
    for (const name of requested) {
      if (this.has(name)) {
        out.add(name);
        continue;
      }
      const folded = foldedMcpAlternative(name);
      if (folded !== undefined && this.has(folded)) out.add(folded);
    }
    return [...out];
  }
}
