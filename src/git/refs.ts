import path from "node:path";
import type { FileAccess } from "./file-access.js";

const FULL_ID = /^[0-9a-f]{40}$/;
/** How git expands a short name, in order (`git rev-parse`'s "ref rules"). */
const RULES = ["%", "refs/%", "refs/tags/%", "refs/heads/%", "refs/remotes/%", "refs/remotes/%/HEAD"];
/** Symbolic refs pointing at symbolic refs: git gives up after 5 levels too. */
const MAX_DEPTH = 5;

/** `packed-refs`: full ref names to ids (peeled `^` lines and comments skipped). */
function parsePackedRefs(text: string | undefined): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of (text ?? "").split("\n")) {
    if (line.startsWith("#") || line.startsWith("^")) continue;
    const space = line.indexOf(" ");
    const oid = line.slice(0, space);
    if (space === 40 && FULL_ID.test(oid)) refs.set(line.slice(space + 1).trim(), oid);
  }
  return refs;
}

/**
 * Reads refs the way git does, through the tool's file access (so a confined reader confines
 * them): a loose ref file first, then `packed-refs`, following symbolic refs. Replaces
 * isomorphic-git's `resolveRef` on the hot path, whose module alone costs more to load than most
 * calls. Read fresh per call (refs move); `packed-refs` is read once per resolver.
 */
export class RefResolver {
  private packed: Map<string, string> | undefined;

  constructor(
    private readonly files: FileAccess,
    /** The directory with the shared refs and `packed-refs`. */
    private readonly commondir: string,
  ) {}

  private async packedRefs(): Promise<Map<string, string>> {
    this.packed ??= parsePackedRefs(await this.files.readText(path.join(this.commondir, "packed-refs")));
    return this.packed;
  }

  /** The id a full ref name (`refs/heads/main`, `HEAD`) points at, or `undefined`. */
  async read(name: string, depth = 0): Promise<string | undefined> {
    if (depth > MAX_DEPTH) return undefined;
    const text = (await this.files.readText(path.join(this.commondir, name)))?.trim();
    if (text !== undefined) {
      if (FULL_ID.test(text)) return text;
      const target = /^ref:\s*(\S+)$/.exec(text)?.[1];
      if (target !== undefined) return this.read(target, depth + 1);
    }
    return (await this.packedRefs()).get(name);
  }

  /** What a short or full name (`main`, `v1.0`, `origin/main`, `refs/heads/x`) names, by git's rules. */
  async resolve(name: string): Promise<string | undefined> {
    for (const rule of RULES) {
      const oid = await this.read(rule.replace("%", name));
      if (oid !== undefined) return oid;
    }
    return undefined;
  }
}
