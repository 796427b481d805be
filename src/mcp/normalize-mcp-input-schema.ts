const DRAFT_04 = /^https?:\/\/json-schema\.org\/draft-04\/schema#?$/;
const DRAFT_06_07 = /^https?:\/\/json-schema\.org\/draft-0[67]\/schema#?$/;
const DRAFT_2019_2020 = /^https?:\/\/json-schema\.org\/draft\/20(19-09|20-12)\/schema#?$/;
const DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema";

// Keywords whose value is one schema, a list of schemas, or a map of schemas.
const ONE = [
  "additionalProperties",
  "additionalItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "items",
];
const LIST = ["allOf", "anyOf", "oneOf", "prefixItems", "items"];
const MAP = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas", "dependencies"];

/**
 * Brings a server's input schema to a draft the catalog validates (draft-07, or 2020-12 when it
 * says so), without changing what it accepts: real servers publish draft-04, draft-07 and
 * 2020-12 schemas, and a draft-04 form such as `exclusiveMinimum: true` must not get a tool
 * skipped. Draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` become the numeric form, a
 * draft-04 `id` becomes `$id`, and a `$schema` the validator does not know is dropped (2019-09 is
 * read as 2020-12, its close successor). Returns a copy; the input is not changed.
 */
export function normalizeMcpInputSchema(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const declared = typeof schema.$schema === "string" ? schema.$schema : undefined;
  const draft04 = declared !== undefined && DRAFT_04.test(declared);
  const copy = walk(schema, draft04, 0) as Record<string, unknown>;
  if (declared === undefined) return copy;
  if (DRAFT_2019_2020.test(declared)) copy.$schema = DRAFT_2020;
  else if (!DRAFT_06_07.test(declared)) delete copy.$schema;
  return copy;
}

function walk(node: unknown, draft04: boolean, depth: number): unknown {
  if (typeof node !== "object" || node === null || Array.isArray(node) || depth > 64) return node;
  const out: Record<string, unknown> = { ...(node as Record<string, unknown>) };
  fixExclusive(out, "exclusiveMinimum", "minimum");
  fixExclusive(out, "exclusiveMaximum", "maximum");
  if (draft04 && typeof out.id === "string" && out.$id === undefined) {
    out.$id = out.id;
    delete out.id;
  }
  for (const key of ONE) {
    if (key in out && !Array.isArray(out[key])) out[key] = walk(out[key], draft04, depth + 1);
  }
  for (const key of LIST) {
    const value = out[key];
    if (Array.isArray(value)) out[key] = value.map((item) => walk(item, draft04, depth + 1));
  }
  for (const key of MAP) {
    const value = out[key];
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      out[key] = Object.fromEntries(
        // draft-04 `dependencies` may map to a list of names, which walk() leaves alone.
        Object.entries(value).map(([name, child]) => [name, walk(child, draft04, depth + 1)]),
      );
    }
  }
  return out;
}

// draft-04: `exclusiveMinimum: true` modifies `minimum`; since draft-06 it is the bound itself.
function fixExclusive(node: Record<string, unknown>, exclusive: string, bound: string): void {
  const flag = node[exclusive];
  if (typeof flag !== "boolean") return;
  if (flag && typeof node[bound] === "number") {
    node[exclusive] = node[bound];
    delete node[bound];
  } else {
    delete node[exclusive];
  }
}
