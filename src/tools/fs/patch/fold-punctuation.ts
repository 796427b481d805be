const FOLDED = /[\u00a0\u2000-\u200a\u2010-\u2015\u2018-\u201f\u202f\u205f\u2212\u3000]/g;
const HAS_FOLDED = new RegExp(FOLDED.source);

function foldCharacter(character: string): string {
  const code = character.charCodeAt(0);
  if ((code >= 0x2010 && code <= 0x2015) || code === 0x2212) return "-";
  if (code >= 0x2018 && code <= 0x201b) return "'";
  if (code >= 0x201c && code <= 0x201f) return '"';
  return " ";
}

/**
 * Replaces typographic punctuation with its ASCII look-alike: hyphens, en/em dashes and the
 * minus sign with `-`, curly single quotes with `'`, curly double quotes with `"`, and NBSP and
 * the other Unicode spaces with a plain space. Models often write one where a file has the
 * other; the last, most tolerant matching level compares folded text.
 */
export function foldPunctuation(text: string): string {
  return HAS_FOLDED.test(text) ? text.replace(FOLDED, foldCharacter) : text;
}
