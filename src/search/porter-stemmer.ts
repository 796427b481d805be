/**
 * The Porter (1980) stemming algorithm for English, so that "searching", "searches" and
 * "searched" meet at "search". Words of one or two letters and words with digits are kept.
 */
export function stem(word: string): string {
  if (word.length <= 2 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  w = step1a(w);
  w = step1b(w);
  w = step1c(w);
  w = replaceSuffix(w, STEP2, 0);
  w = replaceSuffix(w, STEP3, 0);
  w = step4(w);
  w = step5(w);
  return w;
}

function isConsonant(w: string, i: number): boolean {
  const c = w[i];
  if (c === "a" || c === "e" || c === "i" || c === "o" || c === "u") return false;
  if (c === "y") return i === 0 || !isConsonant(w, i - 1);
  return true;
}

/** The number of vowel-consonant sequences in `stemPart` ("m" in Porter's paper). */
function measure(stemPart: string): number {
  let count = 0;
  let i = 0;
  const n = stemPart.length;
  while (i < n && isConsonant(stemPart, i)) i++;
  while (i < n) {
    while (i < n && !isConsonant(stemPart, i)) i++;
    if (i >= n) break;
    while (i < n && isConsonant(stemPart, i)) i++;
    count++;
  }
  return count;
}

function hasVowel(stemPart: string): boolean {
  for (let i = 0; i < stemPart.length; i++) if (!isConsonant(stemPart, i)) return true;
  return false;
}

function endsWithDoubleConsonant(w: string): boolean {
  const n = w.length;
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1);
}

/** consonant-vowel-consonant at the end, the last not w, x or y ("*o" in the paper). */
function endsCvc(w: string): boolean {
  const n = w.length;
  if (n < 3) return false;
  const last = w[n - 1];
  return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) && last !== "w" && last !== "x" && last !== "y";
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w.slice(0, -3)) > 0 ? w.slice(0, -1) : w;
  let base: string | undefined;
  if (w.endsWith("ed") && hasVowel(w.slice(0, -2))) base = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w.slice(0, -3))) base = w.slice(0, -3);
  if (base === undefined) return w;
  if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return `${base}e`;
  if (endsWithDoubleConsonant(base) && !/[lsz]$/.test(base)) return base.slice(0, -1);
  if (measure(base) === 1 && endsCvc(base)) return `${base}e`;
  return base;
}

function step1c(w: string): string {
  if (w.endsWith("y") && hasVowel(w.slice(0, -1))) return `${w.slice(0, -1)}i`;
  return w;
}

const STEP2: readonly (readonly [string, string])[] = [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["abli", "able"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
];

const STEP3: readonly (readonly [string, string])[] = [
  ["icate", "ic"],
  ["ative", ""],
  ["alize", "al"],
  ["iciti", "ic"],
  ["ical", "ic"],
  ["ful", ""],
  ["ness", ""],
];

function replaceSuffix(w: string, rules: readonly (readonly [string, string])[], minMeasure: number): string {
  for (const [suffix, replacement] of rules) {
    if (w.endsWith(suffix)) {
      const base = w.slice(0, -suffix.length);
      return measure(base) > minMeasure ? base + replacement : w;
    }
  }
  return w;
}

const STEP4 = [
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

function step4(w: string): string {
  // Longest suffix first, as the paper's table is read.
  let match: string | undefined;
  for (const suffix of STEP4) if (w.endsWith(suffix) && (match === undefined || suffix.length > match.length)) match = suffix;
  if (match === undefined) return w;
  const base = w.slice(0, -match.length);
  if (measure(base) <= 1) return w;
  if (match === "ion" && !/[st]$/.test(base)) return w;
  return base;
}

function step5(w: string): string {
  let out = w;
  if (out.endsWith("e")) {
    const base = out.slice(0, -1);
    const m = measure(base);
    if (m > 1 || (m === 1 && !endsCvc(base))) out = base;
  }
  if (measure(out) > 1 && endsWithDoubleConsonant(out) && out.endsWith("l")) out = out.slice(0, -1);
  return out;
}
