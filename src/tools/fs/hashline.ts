/**
 * Hashline anchors: `<line>#<hash>` where the hash is four hex digits of the line's text (FNV-1a).
 * An edit addressed by anchors applies only if the lines still hash the same, so an edit planned
 * on a stale read is refused instead of landing on the wrong lines.
 */
export function lineHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return (hash & 0xffff).toString(16).padStart(4, "0");
}

/** The anchor of line `number` (1-based) with this text. */
export function anchorOf(number: number, text: string): string {
  return `${number}#${lineHash(text)}`;
}

/** Parses `"12#a3f0"`; `undefined` when malformed. */
export function parseAnchor(anchor: string): { line: number; hash: string } | undefined {
  const match = /^(\d+)#([0-9a-f]{4})$/.exec(anchor.trim());
  if (match === null) return undefined;
  return { line: Number(match[1]), hash: match[2] as string };
}
