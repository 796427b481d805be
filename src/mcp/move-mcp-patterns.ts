/**
 * Takes the regular expressions out of an MCP server's input schema before the catalog validates
 * calls with it, and tells the model about them in descriptions instead.
 *
 * A `pattern` or `patternProperties` key is a regular expression chosen by the server, and the
 * catalog would run it, in the host's one JavaScript thread, over strings the model chooses. A
 * pattern such as `(a+)+$` backtracks exponentially: measured, a 24-character argument blocked
 * the host's event loop (every run, every connection) for 14.5 s, and 40 characters for longer than
 * anyone waits. JavaScript cannot bound a regular expression's time, and no test tells a safe
 * pattern from a slow one in general, so the catalog does not run them: the server, which
 * validates its own input, still does.
 *
 * - `pattern: "<re>"` is removed and the node's `description` says "Must match the regular
 *   expression <re> (the server checks it)", so the model still knows.
 * - `patternProperties` is removed with the `additionalProperties` and `unevaluatedProperties` of
 *   the same node (they would now refuse the names the patterns allowed); the description names
 *   the patterns.
 *
 * Every place a schema can sit is walked, including keywords the catalog does not know (a `$ref`
 * may point into them); values that are data (`enum`, `const`, `default`, `examples`) are not.
 * Returns a copy.
 */
export function moveMcpPatternsToDescriptions(schema: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return node(schema, 0) as Record<string, unknown>;
}

/** Keywords whose values are data, never schemas: left exactly as they are. */
const DATA = new Set(["enum", "const", "default", "examples", "required", "type", "$ref", "$id", "$schema", "$anchor"]);

/** Keywords whose values map names (properties, definitions) to schemas: the names are not keywords. */
const NAMED = new Set(["properties", "definitions", "$defs", "dependentSchemas", "dependencies"]);

/** Deeper schemas are refused by `checkMcpInputSchema` anyway (64 levels). */
const MAX_DEPTH = 64;

/** The longest pattern quoted in a description; longer ones are cut. */
const MAX_QUOTED = 300;

function node(value: unknown, depth: number): unknown {
  if (depth > MAX_DEPTH || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => node(item, depth + 1));
  const out: Record<string, unknown> = {};
  const notes: string[] = [];
  const source = value as Record<string, unknown>;
  const patternProperties = source.patternProperties;
  const dropsPatternProperties = typeof patternProperties === "object" && patternProperties !== null;
  for (const [key, child] of Object.entries(source)) {
    if (key === "pattern" && typeof child === "string") {
      notes.push(`Must match the regular expression ${quote(child)} (the server checks it).`);
      continue;
    }
    if (key === "patternProperties" && dropsPatternProperties) {
      const names = Object.keys(patternProperties).map(quote).join(", ");
      notes.push(`Other properties whose names match ${names} are accepted (the server checks them).`);
      continue;
    }
    if (dropsPatternProperties && (key === "additionalProperties" || key === "unevaluatedProperties")) continue;
    if (DATA.has(key)) out[key] = child;
    else if (NAMED.has(key) && typeof child === "object" && child !== null && !Array.isArray(child)) {
      out[key] = Object.fromEntries(Object.entries(child).map(([name, schema]) => [name, node(schema, depth + 2)]));
    } else out[key] = node(child, depth + 1);
  }
  if (notes.length > 0) {
    const own = typeof out.description === "string" && out.description.trim() !== "" ? `${out.description.trim()} ` : "";
    out.description = `${own}${notes.join(" ")}`;
  }
  return out;
}

function quote(pattern: string): string {
  const text = pattern.length > MAX_QUOTED ? `${pattern.slice(0, MAX_QUOTED)}…` : pattern;
  return `/${text}/`;
}
