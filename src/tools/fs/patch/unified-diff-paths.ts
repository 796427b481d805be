/** The path of `/dev/null`, which stands for "no file" on one side of a diff. */
export const DEV_NULL = "/dev/null";

const ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/**
 * Decodes a git-quoted path (`"a/caf\303\251.txt"`): C escapes and octal bytes, read as UTF-8.
 * Returns the quoted string's value and the rest of the text after the closing quote, or
 * `undefined` when the text does not start with a complete quoted string.
 */
export function unquoteGitPath(text: string): { value: string; rest: string } | undefined {
  if (!text.startsWith('"')) return undefined;
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let index = 1; index < text.length; index++) {
    const character = text[index] as string;
    if (character === '"') return { value: new TextDecoder().decode(new Uint8Array(bytes)), rest: text.slice(index + 1) };
    if (character !== "\\") {
      bytes.push(...encoder.encode(character));
      continue;
    }
    const next = text[index + 1] ?? "";
    const octal = /^[0-7]{3}/.exec(text.slice(index + 1));
    if (octal !== null) {
      bytes.push(Number.parseInt(octal[0], 8));
      index += 3;
    } else if (next in ESCAPES) {
      bytes.push(ESCAPES[next] as number);
      index += 1;
    } else return undefined;
  }
  return undefined;
}

/**
 * The path of a `--- ` / `+++ ` header line's value: quoted paths are decoded, and a timestamp
 * after a tab (GNU diff) is dropped.
 */
export function headerPath(value: string): string {
  const quoted = unquoteGitPath(value.trim());
  if (quoted !== undefined) return quoted.value;
  const tab = value.indexOf("\t");
  return (tab === -1 ? value : value.slice(0, tab)).trim();
}

/**
 * Drops git's `a/` and `b/` prefixes. In a `diff --git` section they are dropped where present;
 * in a plain diff only when both sides carry theirs (or the other side is `/dev/null`), so that a
 * real directory named `a` survives a diff made without prefixes.
 */
export function stripPrefixes(oldPath: string, newPath: string, git: boolean): { oldPath: string; newPath: string } {
  const oldPrefixed = oldPath.startsWith("a/");
  const newPrefixed = newPath.startsWith("b/");
  const strip = git || ((oldPrefixed || oldPath === DEV_NULL) && (newPrefixed || newPath === DEV_NULL));
  return {
    oldPath: strip && oldPrefixed ? oldPath.slice(2) : oldPath,
    newPath: strip && newPrefixed ? newPath.slice(2) : newPath,
  };
}

/**
 * The two paths of a `diff --git a/x b/y` line (with their prefixes), or `undefined` when they
 * cannot be told apart. Unquoted paths with spaces are split where both halves agree.
 */
export function gitHeaderPaths(line: string): { oldPath: string; newPath: string } | undefined {
  const rest = line.slice("diff --git ".length);
  const first = unquoteGitPath(rest);
  if (first !== undefined) {
    const second = unquoteGitPath(first.rest.trim());
    const newPath = second?.value ?? first.rest.trim();
    return newPath === "" ? undefined : { oldPath: first.value, newPath };
  }
  const candidates: number[] = [];
  for (let at = rest.indexOf(" b/"); at !== -1; at = rest.indexOf(" b/", at + 1)) candidates.push(at);
  const split = candidates.find((at) => rest.slice(0, at).slice(2) === rest.slice(at + 3)) ?? candidates[0];
  if (split === undefined) {
    const parts = rest.split(" ");
    return parts.length === 2 ? { oldPath: parts[0] as string, newPath: parts[1] as string } : undefined;
  }
  const second = rest.slice(split + 1);
  const quoted = unquoteGitPath(second);
  return { oldPath: rest.slice(0, split), newPath: quoted?.value ?? second };
}
