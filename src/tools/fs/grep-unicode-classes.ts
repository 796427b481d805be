/** ripgrep's (Rust regex's) Unicode word character class, as the members of a JavaScript `u` class. */
const WORD = "\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}\\p{Join_Control}";

/** Replacements outside a character class. */
const OUTSIDE: Readonly<Record<string, string>> = {
  w: `[${WORD}]`,
  W: `[^${WORD}]`,
  d: "\\p{Nd}",
  D: "\\P{Nd}",
  // Rust's \s is White_Space; JavaScript's also holds U+FEFF (`a\sb` matched `a\ufeffb`).
  s: "\\p{White_Space}",
  S: "\\P{White_Space}",
  b: `(?:(?<=[${WORD}])(?![${WORD}])|(?<![${WORD}])(?=[${WORD}]))`,
  B: `(?:(?<=[${WORD}])(?=[${WORD}])|(?<![${WORD}])(?![${WORD}]))`,
};

/** Replacements inside a character class (`\b` is left; `\W`: see {@link rewriteClass}). */
const INSIDE: Readonly<Record<string, string>> = {
  w: WORD,
  d: "\\p{Nd}",
  D: "\\P{Nd}",
  s: "\\p{White_Space}",
  S: "\\P{White_Space}",
};

/**
 * A pattern's `\w`, `\W`, `\d`, `\D`, `\s`, `\S`, `\b`, `\B` as ripgrep means them (Unicode: `é` is a word
 * character, `٣` a digit) for the JavaScript engine, whose `u` regular expressions mean ASCII by
 * them: `^\w+$` matched `éé` in ripgrep and not in the JavaScript engine. Escapes are skipped
 * whole (`\\w` is a backslash and a `w`); inside a class, `\w`, `\d`, `\D`, `\s` and `\S` are replaced.
 */
export function withUnicodeClasses(pattern: string): string {
  let out = "";
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    if (char === "\\" && at + 1 < pattern.length) {
      const next = pattern[at + 1] as string;
      out += OUTSIDE[next] ?? `\\${next}`;
      at++;
      continue;
    }
    if (char === "[") {
      const end = classEnd(pattern, at);
      if (end !== undefined) {
        out += rewriteClass(pattern.slice(at + 1, end));
        at = end;
        continue;
      }
    }
    out += char;
  }
  return out;
}

/** Where the class opened at `open` ends (its `]`), escapes skipped; undefined when it does not. */
function classEnd(pattern: string, open: number): number | undefined {
  for (let at = open + 1; at < pattern.length; at++) {
    if (pattern[at] === "\\") at++;
    else if (pattern[at] === "]") return at;
  }
  return undefined;
}

/**
 * A class's body (between `[` and `]`) with ripgrep's meanings. A `\W` in it cannot stay a member
 * (the complement of a union of properties is no `u` class member): `[X\W]` becomes
 * `(?:[X]|[^word])` and `[^X\W]` becomes `(?:(?![X])[word])`. JavaScript's `[\W]` meant
 * ASCII non-word characters, so `é` matched `[\W]` in the JavaScript engine only.
 */
function rewriteClass(body: string): string {
  const negated = body.startsWith("^");
  let members = "";
  let nonWord = false;
  for (let at = negated ? 1 : 0; at < body.length; at++) {
    const char = body[at] as string;
    if (char === "\\" && at + 1 < body.length) {
      const next = body[at + 1] as string;
      if (next === "W") nonWord = true;
      else members += INSIDE[next] ?? `\\${next}`;
      at++;
      continue;
    }
    members += char;
  }
  if (!nonWord) return `[${negated ? "^" : ""}${members}]`;
  if (negated) return members === "" ? `[${WORD}]` : `(?:(?![${members}])[${WORD}])`;
  return members === "" ? `[^${WORD}]` : `(?:[${members}]|[^${WORD}])`;
}
