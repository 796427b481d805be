// The validator compiles a plain JSON Schema lazily, at its first call (thousands of MCP tools must
// cost nothing until called). These are the faults that only show then, so every call of the tool
// would fail as "unusable input schema": checked when the schema is given instead.
import { decodePointerSegment } from "./json-pointer.js";
import { refChainDepth } from "./ref-chain-depth.js";

/**
 * The deepest the validator's compilation may nest through `$ref`s (see `refChainDepth`): a ring
 * of 300 definitions overflowed its stack, 200 took a second of the host's thread to compile;
 * 100 is half the depth that still compiled, and real schemas chain a few.
 */
export const MAX_REF_CHAIN = 100;

/**
 * Schema nodes the reference check may visit under `$ref` targets, nested targets counted again
 * (see `refChainDepth`), unless the caller gives a tighter bound. It keeps the check linear-ish on a
 * host's own schema; MCP's untrusted schemas get a much lower one (the validator's first compile of
 * nested self-references measured 0.2-0.4 ms per such node, 170 s for 270,000).
 */
export const MAX_REFERENCED_NODES = 200_000;

const MISSING = Symbol("missing");

/**
 * What would make `schema` fail when the validator first compiles it: a `$ref` outside the schema
 * (nothing can load it), one that points nowhere, a circle of `$ref`s that never reaches a schema,
 * `$ref`s chained more than {@link MAX_REF_CHAIN} deep, a `pattern` that is not a regular
 * expression; also a field named `__proto__`, which compiles but is never checked. Returns the
 * first problem found, or `undefined`. Iterative: schemas may be deep.
 */
export function explainUncompilableJsonSchema(
  schema: unknown,
  limits: { readonly maxReferencedNodes?: number; readonly maxRefsIntoReferringTargets?: number } = {},
): string | undefined {
  const maxReferencedNodes = limits.maxReferencedNodes ?? MAX_REFERENCED_NODES;
  const maxRefsIntoReferringTargets = limits.maxRefsIntoReferringTargets ?? Number.POSITIVE_INFINITY;
  const stack: [value: unknown, path: string][] = [[schema, "#"]];
  while (stack.length > 0) {
    const [value, path] = stack.pop() as [unknown, string];
    if (typeof value !== "object" || value === null) continue;
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    // Pushed in reverse, so problems are reported in document order.
    for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]?.[1], `${path}/${entries[i]?.[0]}`]);
    for (const [key, child] of entries) {
      const problem = checkKeyword(schema, key, child, `${path}/${key}`);
      if (problem !== undefined) return problem;
    }
  }
  const { depth: chain, refsIntoReferringTargets } = refChainDepth(
    schema,
    (pointer) => {
      const target = resolvePointer(schema, pointer);
      return target === MISSING ? undefined : target;
    },
    MAX_REF_CHAIN + 1,
    maxReferencedNodes,
  );
  if (!Number.isFinite(chain)) {
    return `its $ref targets hold more than ${maxReferencedNodes} schema nodes in all (nested targets count again), which the validator would take too long to compile`;
  }
  // The root is the first step of every chain.
  if (chain - 1 > MAX_REF_CHAIN) {
    return `its $refs chain more than ${MAX_REF_CHAIN} definitions into each other (the validator cannot compile that)`;
  }
  return refsIntoReferringTargets > maxRefsIntoReferringTargets
    ? `it has ${refsIntoReferringTargets} $refs to definitions that hold $refs themselves (at most ${maxRefsIntoReferringTargets}: each costs the validator milliseconds to compile)`
    : undefined;
}

/**
 * Why a `properties` or `required` naming `__proto__` is refused: Ajv takes the name for the
 * prototype, so it never checks such a field (any value passes, `{"__proto__": 5}` for a string)
 * and `required: ["__proto__"]` is met by `{}` (measured with Ajv 8, drafts 7 and 2020-12; round
 * 44). The model would be told of a field nothing checks. Zod schemas are checked by zod instead.
 */
const PROTO_FIELD =
  'names a field "__proto__", which the validator cannot check (it reads the name as the prototype: any value passes, and a required one is always there)';

function checkKeyword(root: unknown, key: string, value: unknown, path: string): string | undefined {
  if (key === "$ref" && typeof value === "string") return checkReference(root, value, path);
  if (
    key === "properties" &&
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.hasOwn(value, "__proto__")
  ) {
    return `${path} ${PROTO_FIELD}`;
  }
  if (key === "required" && Array.isArray(value) && value.includes("__proto__")) return `${path} ${PROTO_FIELD}`;
  if (key === "pattern" && typeof value === "string") return checkPattern(value, path);
  if (key === "patternProperties" && typeof value === "object" && value !== null) {
    for (const pattern of Object.keys(value)) {
      const problem = checkPattern(pattern, `${path}/${pattern}`);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

function checkReference(root: unknown, reference: string, path: string): string | undefined {
  // "#name" is an anchor ($id / $anchor): left to the validator.
  if (reference !== "#" && reference.startsWith("#") && !reference.startsWith("#/")) return undefined;
  if (!reference.startsWith("#")) return `${path} refers outside the schema (${JSON.stringify(reference.slice(0, 200))})`;
  // Follow a chain of references ($ref to a node that is itself a $ref ...): one that comes back
  // to where it started never reaches a schema, and the validator would fail on every call.
  const seen = new Set<string>();
  let current = reference === "#" ? "#/" : reference;
  while (current.startsWith("#/")) {
    // A longer chain fails the depth bound anyway; stopping here keeps many refs into it linear.
    if (seen.size > MAX_REF_CHAIN) return `${path} starts a chain of more than ${MAX_REF_CHAIN} $refs`;
    if (seen.has(current))
      return `${path} is a circular $ref (${JSON.stringify(reference.slice(0, 200))} never reaches a schema)`;
    seen.add(current);
    const target = resolvePointer(root, current);
    if (target === MISSING) return `${path} refers to ${JSON.stringify(current.slice(0, 200))}, which does not exist`;
    const next = typeof target === "object" && target !== null ? (target as Record<string, unknown>).$ref : undefined;
    if (typeof next !== "string") return undefined;
    current = next === "#" ? "#/" : next;
  }
  return undefined;
}

function resolvePointer(root: unknown, pointer: string): unknown {
  let target: unknown = root;
  if (pointer === "#/") return root;
  for (const raw of pointer.slice(2).split("/")) {
    const segment = decodePointerSegment(raw);
    if (segment === undefined) return MISSING;
    if (typeof target !== "object" || target === null || !Object.hasOwn(target, segment)) return MISSING;
    target = (target as Record<string, unknown>)[segment];
  }
  return target;
}

function checkPattern(pattern: string, path: string): string | undefined {
  try {
    new RegExp(pattern, "u");
    return undefined;
  } catch {
    return `${path} is not a valid regular expression`;
  }
}
