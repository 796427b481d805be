import { refChainDepth } from "./ref-chain-depth.js";

const MAX_NODES = 20_000;
const MAX_DEPTH = 64;
/**
 * The deepest the validator's compilation may nest through `$ref`s (see `refChainDepth`): a ring
 * of 300 definitions overflowed its stack, 200 took a second of the host's thread to compile;
 * 100 is half the depth that still compiled, and real servers' schemas chain a few.
 */
const MAX_REF_CHAIN = 100;
/**
 * The most values one `enum` (or any one array) may list. Checking a schema against its
 * meta-schema costs the validator the square of an array's length (uniqueness): measured, 16,000
 * values blocked the host's thread for 4.2 s, and 300,000 (4.5 MB, under the transport's limit)
 * for about half an hour. 1,000 values cost about 30 ms; real enums (countries, time zones) fit.
 */
const MAX_ARRAY_ITEMS = 1_000;

/**
 * Finds what would make a JSON Schema fail when it is first compiled, at the first call rather
 * than at registration: a `$ref` that points nowhere, a `pattern` that is not a regular
 * expression, a schema too large or too deep to be sane. The catalog compiles validators lazily
 * (so thousands of MCP tools cost nothing until called); this keeps a broken server schema from
 * turning the first call into an exception. Returns the problem, or `undefined`.
 */
export function checkMcpInputSchema(schema: unknown): string | undefined {
  let nodes = 0;
  const visit = (value: unknown, depth: number, path: string): string | undefined => {
    if (typeof value !== "object" || value === null) return undefined;
    if (++nodes > MAX_NODES) return `the schema has more than ${MAX_NODES} nodes`;
    if (depth > MAX_DEPTH) return `the schema is nested deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(value) && value.length > MAX_ARRAY_ITEMS) {
      return `${path} lists ${value.length} values (at most ${MAX_ARRAY_ITEMS})`;
    }
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const problem = checkKeyword(schema, key, child, `${path}/${key}`) ?? visit(child, depth + 1, `${path}/${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  const problem = visit(schema, 0, "#");
  if (problem !== undefined) return problem;
  const chain = refChainDepth(
    schema,
    (pointer) => {
      const target = resolvePointer(schema, pointer);
      return target === MISSING ? undefined : target;
    },
    MAX_REF_CHAIN + 1,
  );
  // The root is the first step of every chain.
  return chain - 1 > MAX_REF_CHAIN
    ? `its $refs chain more than ${MAX_REF_CHAIN} definitions into each other (the validator cannot compile that)`
    : undefined;
}

function checkKeyword(root: unknown, key: string, value: unknown, path: string): string | undefined {
  if (key === "$ref" && typeof value === "string") return checkReference(root, value, path);
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
  if (reference !== "#" && reference.startsWith("#") && !reference.startsWith("#/")) return undefined;
  if (!reference.startsWith("#")) return `${path} refers outside the schema (${JSON.stringify(reference.slice(0, 200))})`;
  // Follow a chain of references ($ref to a node that is itself a $ref ...): one that comes back
  // to where it started never reaches a schema, and the validator would fail on every call.
  const seen = new Set<string>();
  let current = reference === "#" ? "#/" : reference;
  while (current.startsWith("#/")) {
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

const MISSING = Symbol("missing");

function resolvePointer(root: unknown, pointer: string): unknown {
  let target: unknown = root;
  if (pointer === "#/") return root;
  for (const raw of pointer.slice(2).split("/")) {
    const segment = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
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
