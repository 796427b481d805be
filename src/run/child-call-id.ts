import { createHash } from "node:crypto";
import { MAX_CALL_ID_LENGTH } from "./call-id-claims.js";

/**
 * The id of a call a tool makes on behalf of its own call (`toolbox`'s `<id>/<tool>`, a recipe's
 * `<id>/step-N`): `parent` and `suffix` joined by `/`, within {@link MAX_CALL_ID_LENGTH}. The limit
 * is for ids the host gives; a derived one must never be refused for it (the model could do
 * nothing about that), so a long parent is cut and a hash of it kept: distinct parents still give
 * distinct ids.
 */
export function childCallId(parent: string, suffix: string): string {
  const joined = `${parent}/${suffix}`;
  if (joined.length <= MAX_CALL_ID_LENGTH) return joined;
  const hash = createHash("sha256").update(parent).digest("hex").slice(0, 32);
  // The suffix is a tool name (at most 64 characters) or `step-N`; kept whole when it fits.
  const tail = suffix.slice(0, MAX_CALL_ID_LENGTH / 2);
  const keep = MAX_CALL_ID_LENGTH - tail.length - hash.length - 3;
  return `${parent.slice(0, keep)}~${hash}~/${tail}`;
}
