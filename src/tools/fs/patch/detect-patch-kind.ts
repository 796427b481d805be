const CODEX_MARKER = /^\s*\*\*\* (Begin Patch|Add File:|Update File:|Delete File:)/m;

let last: { readonly text: string; readonly kind: "unified" | "codex" } | undefined;

/**
 * Which format a raw `patch` string is in: `"codex"` when it has a `*** Begin Patch` line or a
 * Codex file header (so a Codex patch missing its Begin line gets the Codex parser's clear error),
 * otherwise `"unified"`.
 */
export function detectPatchKind(text: string): "unified" | "codex" {
  // The preflight, the handler and the plan each ask about the same text (megabytes for a large
  // patch; the multiline search costs milliseconds there): the last answer is kept. A text
  // without "*** " cannot match, and one scan for it is several times cheaper than the search.
  if (last?.text === text) return last.kind;
  const kind = text.includes("*** ") && CODEX_MARKER.test(text) ? "codex" : "unified";
  last = { text, kind };
  return kind;
}
