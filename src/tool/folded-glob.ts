/**
 * The glob of a deny entry (`disabledTools: ["mcp_docs_*"]`), over folded tool names. A user who
 * writes `*` in a deny list means "turn off every tool like this"; no tool name has a `*`, so
 * without globs such an entry turned nothing off (a deny list failing open).
 */

/** The character that stands for any run of name characters in a folded glob. */
const STAR = "*";

/**
 * A glob whose literal parts are already folded (`[a-z0-9_]` only) and whose `*` matches any run
 * of folded name characters, the empty run too. Matching simulates the pattern as a small
 * automaton (one pass over the name, a set of pattern positions), so no pattern backtracks:
 * `a*a*a*a*b` against a long host name costs its length times the pattern's, no more.
 */
export class FoldedGlob {
  /** The pattern with runs of `*` collapsed to one. */
  private readonly pattern: string;

  /** @param pattern - folded literal parts joined by `*` (`mcp_docs_*`). */
  constructor(pattern: string) {
    this.pattern = pattern.replace(/\*+/g, STAR);
  }

  /** True when the folded name `folded` is matched whole. */
  matches(folded: string): boolean {
    return this.run(folded)[this.pattern.length] === 1;
  }

  /**
   * True when some name starting with `prefix` is matched: what a hashed MCP name (of which only
   * the first characters are known, the rest being a hash) is denied by, failing closed.
   */
  matchesSomeExtension(prefix: string): boolean {
    return this.run(prefix).includes(1);
  }

  /** The pattern positions reachable after reading `text` (1 = reachable). */
  private run(text: string): Uint8Array {
    const { pattern } = this;
    const start = new Uint8Array(pattern.length + 1);
    start[0] = 1;
    let states = this.closed(start);
    for (const character of text) {
      const next = new Uint8Array(pattern.length + 1);
      let any = false;
      for (let position = 0; position < pattern.length; position++) {
        if (states[position] !== 1) continue;
        const token = pattern[position];
        if (token === STAR) {
          next[position] = 1;
          any = true;
        } else if (token === character) {
          next[position + 1] = 1;
          any = true;
        }
      }
      if (!any) return next;
      states = this.closed(next);
    }
    return states;
  }

  /** `states` with every `*` also allowed to match nothing (its next position reachable). */
  private closed(states: Uint8Array): Uint8Array {
    for (let position = 0; position < this.pattern.length; position++) {
      if (states[position] === 1 && this.pattern[position] === STAR) states[position + 1] = 1;
    }
    return states;
  }
}
