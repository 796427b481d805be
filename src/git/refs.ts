import path from "node:path";
import type { FileAccess } from "./file-access.js";
import { gitError } from "./git-errors.js";

const FULL_ID = /^[0-9a-f]{40}$/;
/** How git expands a short name, in order (`git rev-parse`'s "ref rules"). */
const RULES = ["%", "refs/%", "refs/tags/%", "refs/heads/%", "refs/remotes/%", "refs/remotes/%/HEAD"];
/** Symbolic refs pointing at symbolic refs: git gives up after 5 levels too. */
const MAX_DEPTH = 5;

/**
 * Whether `name` is a ref name git would read (the path-relevant rules of `git check-ref-format`):
 * relative, no `..`, no empty component or one starting with `.`, no control characters or
 * backslash. A ref name is joined to the git directory, so `ref: ../../../elsewhere` in HEAD (or
 * a model's `../../etc/x` as a branch name) would otherwise read a file outside the repository.
 */
export function isReadableRefName(name: string): boolean {
  if (name === "" || name.startsWith("/") || name.endsWith("/") || name.includes("..") || name.includes("\\")) return false;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0020\u007f~^:?*[]/.test(name)) return false;
  return name.split("/").every((part) => part !== "" && !part.startsWith(".") && !part.endsWith(".lock"));
}

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

  /**
   * The id a full ref name (`refs/heads/main`, `HEAD`) points at, or `undefined`.
   * @throws ToolError `invalid_ref` when the loose ref file is broken (neither an id nor `ref: <name>`).
   */
  async read(name: string, depth = 0): Promise<string | undefined> {
    if (depth > MAX_DEPTH || !isReadableRefName(name)) return undefined;
    const text = (await this.files.readText(path.join(this.commondir, name)))?.trim();
    if (text === undefined) return (await this.packedRefs()).get(name);
    if (FULL_ID.test(text)) return text;
    const target = /^ref:\s*(\S+)$/.exec(text)?.[1];
    if (target !== undefined) return this.read(target, depth + 1);
    // A broken loose ref shadows the packed one: git ignores both ("ignoring broken ref") and
    // fails, so falling back to packed-refs would answer with a stale commit git never shows.
    throw gitError(
      "invalid_ref",
      `The ref ${name} is broken: its file holds neither a commit id nor "ref: <name>" (git ignores it and fails too).`,
      "Name another branch, tag or a commit id; the ref file needs repairing (git update-ref).",
    );
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
