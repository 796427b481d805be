const CODEX_MARKER = /^\s*\*\*\* (Begin Patch|Add File:|Update File:|Delete File:)/m;

/**
 * Which format a raw `patch` string is in: `"codex"` when it has a `*** Begin Patch` line or a
 * Codex file header (so a Codex patch missing its Begin line gets the Codex parser's clear error),
 * otherwise `"unified"`.
 */
export function detectPatchKind(text: string): "unified" | "codex" {
  return CODEX_MARKER.test(text) ? "codex" : "unified";
}
