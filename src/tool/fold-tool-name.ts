import { FoldedGlob } from "./folded-glob.js";

/**
 * How tool names are folded, shared by the MCP layer (which registers `mcp_<server>_<tool>` in
 * folded form) and the run layer (which must match a host's list entries written in a server's
 * own spelling against those registered names). It lives here, below both, so the run layer
 * never imports src/mcp (the core stays acyclic: test/architecture/dependency-rule.test.ts).
 */

/** The longest registered name an MCP tool gets; past it the name is cut and hashed. */
export const MAX_FOLDED_NAME_LENGTH = 64;
/** Hex digits of the hash suffix (`_` and these) of a cut or lossy MCP tool name. */
export const FOLDED_NAME_HASH_LENGTH = 10;
/** Characters of the folded name a hashed name keeps before its `_<hash>`. */
const KEPT_BEFORE_HASH = MAX_FOLDED_NAME_LENGTH - FOLDED_NAME_HASH_LENGTH - 1;
const HASHED = new RegExp(`_[0-9a-f]{${FOLDED_NAME_HASH_LENGTH}}$`);

function foldCase(part: string): string {
  return part
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
}

/**
 * One name (or part of one) folded as MCP tool names are: compatibility-decomposed (NFKD, so
 * NFC and NFD spellings and `ﬁ`/`fi` agree), marks dropped (`café` → `cafe`), lower-cased, and
 * every character outside `[a-z0-9_]` replaced by `_`. So `read-file`, `Read.File` and
 * `read_file` are one name.
 */
export function foldToolName(name: string): string {
  return foldCase(name).replace(/[^a-z0-9_]/g, "_");
}

/**
 * True when folding `name` loses more than the spec's rule does (characters beyond `-`, `/`,
 * `.` and space): an MCP tool name made with such a part carries a hash of the raw names.
 */
export function isLossyToolName(name: string): boolean {
  return /[^a-z0-9_\-/. ]/.test(foldCase(name));
}

/** The prefix of every MCP tool's registered name (`MCP_TOOL_NAME_PREFIX` in src/mcp). */
export const FOLDED_MCP_PREFIX = "mcp_";

/**
 * True when the allow-list entry `entry` names the registered tool `name`: the same string, or
 * `name` is an MCP name in folded form and `entry` folds to it (`mcp_Docs_Write.File` allows
 * `mcp_docs_write_file`). A name not in folded form (a host tool `mcp_docs_Write-File`) or not an
 * MCP name is allowed only by its exact spelling, and a hashed MCP name only by its registered
 * name (only the hash, of raw names the run does not have, tells two such tools apart): an entry
 * that matched several tools would allow more than its writer meant.
 */
export function allowEntryNames(entry: string, name: string): boolean {
  return entry === name || foldedMcpAlternative(entry) === name;
}

/**
 * The registered name an allow entry names besides its own spelling: its folded form when that
 * differs and is an MCP name (`mcp_` and the rest), as the catalog registers every MCP tool
 * (`mcp_Docs_Write.File` -> `mcp_docs_write_file`); `undefined` for an entry with a `*` or one
 * already folded. Host tool names are the host's own spelling and stay exact in allow lists
 * (`HOST_CORE` allows nothing; the spec lists names).
 */
export function foldedMcpAlternative(entry: string): string | undefined {
  if (isToolNameGlob(entry)) return undefined;
  const folded = foldToolName(entry);
  return folded !== entry && folded.startsWith(FOLDED_MCP_PREFIX) ? folded : undefined;
}

/**
 * True when a tool list entry has a `*` (after NFKD, so a fullwidth `＊` counts): in a deny list a
 * glob (see {@link denyEntryNames}); in an allow list it stays an exact name, never folded, so it
 * allows nothing a user did not name (no tool name has a `*`): allow lists fail closed.
 */
export function isToolNameGlob(entry: string): boolean {
  return entry.normalize("NFKD").includes("*");
}

/** The glob of a deny entry with a `*`: its other parts folded as names are. */
function denyGlob(entry: string): FoldedGlob {
  return new FoldedGlob(entry.normalize("NFKD").split("*").map(foldToolName).join("*"));
}

/** True when `glob` covers `name`: its folded form whole, or a hashed name by its kept start. */
function globDenies(glob: FoldedGlob, name: string): boolean {
  if (glob.matches(foldToolName(name))) return true;
  return HASHED.test(name) && glob.matchesSomeExtension(name.slice(0, -(FOLDED_NAME_HASH_LENGTH + 1)));
}

/**
 * True when the deny entry `entry` (a load mode `off`, `disabledTools`) covers the registered
 * tool `name`. It fails closed: the same string, any name that folds alike (`mcp_docs_write.file`
 * denies both `mcp_docs_write_file` and a host tool `mcp_docs_Write-File`), and, when the entry
 * would be cut or hashed as an MCP name (longer than 64 characters folded, or lossy), every hashed
 * name that keeps the same first characters (two long tools sharing their first 53 characters
 * are both denied by either's spelling).
 *
 * An entry with a `*` (see {@link isToolNameGlob}) is a glob: `*` matches any run of name
 * characters, the empty run too, and the other parts are folded, so `mcp_Docs_*` denies every
 * tool whose folded name starts with `mcp_docs_` (`mcp_docs_write_file`, a host `mcp_docs_Echo`).
 * A hashed name is denied when some name keeping its first characters would match (fails closed:
 * `*_echo` denies every hashed name, whose tail is a hash).
 */
export function denyEntryNames(entry: string, name: string): boolean {
  if (entry === name) return true;
  if (isToolNameGlob(entry)) return globDenies(denyGlob(entry), name);
  const folded = foldToolName(entry);
  if (folded === foldToolName(name)) return true;
  const hashed = folded.length > MAX_FOLDED_NAME_LENGTH || isLossyToolName(entry);
  return hashed && HASHED.test(name) && name.slice(0, -(FOLDED_NAME_HASH_LENGTH + 1)) === folded.slice(0, KEPT_BEFORE_HASH);
}

/**
 * A deny list compiled for lookups: `denies(name)` is true when some entry covers `name` as
 * {@link denyEntryNames} says, with one fold of `name` and set probes, not a scan of the entries
 * (glob entries, few in practice, are each tried).
 */
export class DeniedNames {
  private readonly exact: ReadonlySet<string>;
  private readonly folded: ReadonlySet<string>;
  /** The first characters a hashed name keeps, of the entries that would be hashed. */
  private readonly hashedPrefixes: ReadonlySet<string>;
  /** The glob entries, compiled; each is tried against a name no set probe covered. */
  private readonly globs: readonly FoldedGlob[];

  constructor(entries: Iterable<string>) {
    const exact = new Set<string>();
    const folded = new Set<string>();
    const prefixes = new Set<string>();
    const globs: FoldedGlob[] = [];
    for (const entry of entries) {
      exact.add(entry);
      if (isToolNameGlob(entry)) {
        globs.push(denyGlob(entry));
        continue;
      }
      const form = foldToolName(entry);
      folded.add(form);
      if (form.length > MAX_FOLDED_NAME_LENGTH || isLossyToolName(entry)) prefixes.add(form.slice(0, KEPT_BEFORE_HASH));
    }
    this.exact = exact;
    this.folded = folded;
    this.hashedPrefixes = prefixes;
    this.globs = globs;
  }

  /** True when an entry covers the registered name `name`. */
  denies(name: string): boolean {
    // Most runs deny nothing: no fold of every tool's name for them.
    if (this.exact.size === 0) return false;
    if (this.exact.has(name) || this.folded.has(foldToolName(name))) return true;
    if (
      this.hashedPrefixes.size > 0 &&
      HASHED.test(name) &&
      this.hashedPrefixes.has(name.slice(0, -(FOLDED_NAME_HASH_LENGTH + 1)))
    ) {
      return true;
    }
    return this.globs.some((glob) => globDenies(glob, name));
  }
}
