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

/** Replacements inside a character class (`\W` and `\b` are left: no union of a negation there). */
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
  let inClass = false;
  for (let at = 0; at < pattern.length; at++) {
    const char = pattern[at] as string;
    if (char === "\\" && at + 1 < pattern.length) {
      const next = pattern[at + 1] as string;
      const table = inClass ? INSIDE : OUTSIDE;
      out += table[next] ?? `\\${next}`;
      at++;
      continue;
    }
    if (char === "[" && !inClass) inClass = true;
    else if (char === "]" && inClass) inClass = false;
    out += char;
  }
  return out;
}
