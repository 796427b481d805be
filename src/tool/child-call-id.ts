import { MAX_CALL_ID_LENGTH } from "./call-id-limit.js";
import { nodeBuiltin } from "./node-builtin.js";

// This module sits in the `tool` layer because `toolbox` (meta) and recipes (host) both derive
// ids with it, and meta may not import from run. `node:crypto` is reached only when a parent id is
// too long to keep whole (rare), through `process.getBuiltinModule`, so the root entry still
// imports no `node:` module (bench/results/root-import.json).

interface HashBuiltin {
  createHash(algorithm: "sha256"): { update(data: string): { digest(encoding: "hex"): string } };
}

function sha256Hex(text: string): string {
  const crypto = nodeBuiltin<HashBuiltin>("node:crypto");
  if (crypto === undefined) throw new Error("deriving a long call id needs Node.js 20.16 or later");
  return crypto.createHash("sha256").update(text).digest("hex");
}

/**
 * The id of a call a tool makes on behalf of its own call (`toolbox`'s `<id>/<tool>`, a recipe's
 * `<id>/step-N`): `parent` and `suffix` joined by `/`, within {@link MAX_CALL_ID_LENGTH}. The limit
 * is for ids the host gives; a derived one must never be refused for it (the model could do
 * nothing about that), so a long parent is cut and a hash of it kept: distinct parents still give
 * distinct ids.
 * @internal
 */
export function childCallId(parent: string, suffix: string): string {
  const joined = `${parent}/${suffix}`;
  if (joined.length <= MAX_CALL_ID_LENGTH) return joined;
  const hash = sha256Hex(parent).slice(0, 32);
  // The suffix is a tool name (at most 64 characters) or `step-N`; kept whole when it fits.
  const tail = suffix.slice(0, MAX_CALL_ID_LENGTH / 2);
  const keep = MAX_CALL_ID_LENGTH - tail.length - hash.length - 3;
  return `${parent.slice(0, keep)}~${hash}~/${tail}`;
}
