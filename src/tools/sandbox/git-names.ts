/**
 * Code points HFS+ leaves out of names when it compares them (the list git checks in
 * `is_hfs_dotgit`, CVE-2014-9390): zero-width non-joiner and joiner, the direction marks and
 * embeddings, the deprecated format characters and the byte order mark. `.g\u200cit` is `.git` there.
 */
const IGNORED_IN_NAMES = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Printable ASCII: the usual name, folded by `toLowerCase` alone. */
const PLAIN_NAME = /^[\x20-\x7e]*$/;

/**
 * A path component as the git-state checks compare it (the file tools' guard and the sandbox's
 * scans): the spellings a file system may take for the same name made one. A case-folding file
 * system (macOS, Windows, ext4 or tmpfs with `casefold`, vfat, exFAT, CIFS) folds Unicode case
 * (`\u212a`, the Kelvin sign, is `k`: `hoo\u212as` is `hooks`) and canonical equivalence; HFS+
 * ignores the code points of {@link IGNORED_IN_NAMES}; NTFS drops trailing dots and spaces
 * (`.git.` is `.git`) and may answer to the short name `git~1` (both refused by git itself,
 * `core.protectNTFS`, on every platform). Compatibility forms (NFKC: fullwidth `．ｇｉｔ`) are
 * folded too: no file system is known to fold them, but no legitimate name needs a look-alike of
 * `.git` or of a name git executes, and a check that folds more than the file system refuses a
 * name, never lets one through.
 */
export function foldGitName(segment: string): string {
  const folded = PLAIN_NAME.test(segment)
    ? segment.toLowerCase()
    : segment.normalize("NFKC").replace(IGNORED_IN_NAMES, "").toLowerCase().normalize("NFKC");
  // Most names end in neither: no trimming pass for them.
  const last = folded.charCodeAt(folded.length - 1);
  const trimmed = last === 0x2e || last === 0x20 ? folded.replace(/[. ]+$/, "") : folded;
  // `.`, `..` and names of dots and spaces only are left as they are (never git state).
  if (trimmed === "" || trimmed === ".") return folded;
  // NTFS alternate data streams: `config::$DATA` is the file `config`, `.git::$INDEX_ALLOCATION`
  // the directory `.git` (git's `is_ntfs_dotgit` refuses them too).
  const stream = trimmed.indexOf(":");
  const named = stream > 0 ? trimmed.slice(0, stream).replace(/[. ]+$/, "") : trimmed;
  return named === "git~1" ? ".git" : named;
}

/** A character outside ASCII (a name without one, control characters too, folds as ASCII). */
const NON_ASCII = /[\u0080-\uffff]/;

/** What may follow a git name in an ASCII spelling of it: NTFS's trailing dots and spaces, a stream. */
const ASCII_TAIL = /^[. ]*(?::.*)?$/s;

/**
 * True when `name` is a spelling of `folded` (a lower-case ASCII git name such as `.git`, `head`
 * or `hooks`): `foldGitName(name) === folded`, answered without the Unicode fold for an ASCII
 * name (NFKC leaves ASCII as it is and no ignored code point is ASCII, so its fold is its lower
 * case, trimmed of trailing dots and spaces, cut at a stream): most names differ from `folded` in
 * their first character, and the rest are compared by their lower-case prefix and what follows
 * it. The listings of a large workspace's every directory go through this at each spawn.
 */
export function isGitNameSpelling(name: string, folded: string): boolean {
  if (name === folded) return true;
  const first = name.charCodeAt(0);
  // `git~1` is `.git`'s short name: it starts with `g`.
  if (first < 0x80 && (first | 0x20) !== folded.charCodeAt(0) && !(folded === ".git" && (first | 0x20) === 0x67)) return false;
  if (NON_ASCII.test(name)) return foldGitName(name) === folded;
  const stem = folded === ".git" && (first | 0x20) === 0x67 ? "git~1" : folded;
  return name.slice(0, stem.length).toLowerCase() === stem && ASCII_TAIL.test(name.slice(stem.length));
}

/** True when `segment` names a `HEAD` (see {@link foldGitName}). */
export function isHeadName(segment: string | undefined): boolean {
  return segment !== undefined && isGitNameSpelling(segment, "head");
}

/** True when `segment` names a `.git` (see {@link foldGitName}). */
export function isDotGitName(segment: string | undefined): boolean {
  return segment !== undefined && isGitNameSpelling(segment, ".git");
}
