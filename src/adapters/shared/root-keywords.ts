import type { JsonObjectSchema, ToolDescriptor } from "agent-tool-catalog";

/** What the Messages API refuses at the top of `input_schema` (a 400 for the whole request). */
export const ANTHROPIC_ROOT_REFUSED = ["anyOf", "oneOf", "allOf"] as const;
/** What OpenAI refuses at the top of a function's `parameters` (a 400 for the whole request). */
export const OPENAI_ROOT_REFUSED = ["anyOf", "oneOf", "allOf", "enum", "const", "not"] as const;
/** The longest JSON of the moved keywords the description carries. */
const MAX_MOVED_LENGTH = 2000;

/** A tool's schema and description as a provider takes them. */
export interface ProviderToolShape {
  readonly description: string;
  readonly schema: JsonObjectSchema;
}

// Descriptors are immutable: each one's shape is computed once per keyword list, and the same
// bytes go out every turn (prompt caching needs the tools prefix byte-identical).
const shapes = new WeakMap<readonly string[], WeakMap<ToolDescriptor, ProviderToolShape>>();

/**
 * The descriptor's schema without the top-level keywords a provider refuses there. The Messages
 * API refuses `anyOf`, `oneOf` and `allOf` ("input_schema does not support oneOf, allOf, or anyOf
 * at the top level"), OpenAI those and `enum`, `const`, `not` ("schema must have type 'object' and
 * not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level"), each with a 400 for the whole
 * request, so one such tool (an MCP server's "give `id` or `name`") failed every request it was
 * sent in. Those keywords move into the description as JSON, for the model; the properties and
 * `required` of `allOf` branches join the top level, and the union of the properties of `oneOf` /
 * `anyOf` branches joins it too (required only when every branch requires it; a property whose
 * schemas differ between branches is an `anyOf` of them), so the model sees the parameters. The run still checks every call against the
 * tool's own schema, so a call that misses them gets `invalid_input` naming what is missing. A
 * schema without them is returned as it is (same object).
 */
export function withoutRefusedRootKeywords(descriptor: ToolDescriptor, refused: readonly string[]): ProviderToolShape {
  const schema = descriptor.inputSchema as Record<string, unknown>;
  if (!refused.some((keyword) => Object.hasOwn(schema, keyword))) {
    return { description: descriptor.description, schema: descriptor.inputSchema };
  }
  let cache = shapes.get(refused);
  if (cache === undefined) {
    cache = new WeakMap();
    shapes.set(refused, cache);
  }
  let shape = cache.get(descriptor);
  if (shape === undefined) {
    shape = moveRootKeywords(descriptor.description, schema, refused);
    cache.set(descriptor, shape);
  }
  return shape;
}

function moveRootKeywords(description: string, schema: Record<string, unknown>, refused: readonly string[]): ProviderToolShape {
  const top: Record<string, unknown> = {};
  const moved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (refused.includes(key)) moved[key] = value;
    else Object.defineProperty(top, key, { value, enumerable: true, writable: true, configurable: true });
  }
  mergeAllOf(top, moved.allOf);
  mergeUnion(top, moved.oneOf);
  mergeUnion(top, moved.anyOf);
  let json = JSON.stringify(moved);
  if (json.length > MAX_MOVED_LENGTH)
    json = `${json.slice(0, MAX_MOVED_LENGTH)}... [${json.length - MAX_MOVED_LENGTH} more characters]`;
  return {
    description: `${description}\n\nThe input must also match: ${json}`,
    schema: top as unknown as JsonObjectSchema,
  };
}

/** The properties and `required` of plain object branches of `allOf`, at the top level (never replacing one). */
function mergeAllOf(top: Record<string, unknown>, allOf: unknown): void {
  if (!Array.isArray(allOf)) return;
  const properties: Record<string, unknown> = isObject(top.properties) ? { ...top.properties } : {};
  const required = new Set<string>(Array.isArray(top.required) ? top.required.filter((name) => typeof name === "string") : []);
  for (const branch of allOf) {
    if (!isObject(branch)) continue;
    if (isObject(branch.properties)) addMissing(properties, branch.properties);
    if (Array.isArray(branch.required)) for (const name of branch.required) if (typeof name === "string") required.add(name);
  }
  if (Object.keys(properties).length > 0) top.properties = properties;
  if (required.size > 0) top.required = [...required];
}

/**
 * The properties of `oneOf` / `anyOf` branches, at the top level (never replacing one): one
 * branch's properties are all a call may give, so the model needs to see every branch's. A name
 * is required only when every branch requires it; a name whose schemas differ between branches
 * takes an `anyOf` of them.
 */
function mergeUnion(top: Record<string, unknown>, branches: unknown): void {
  if (!Array.isArray(branches) || branches.length === 0) return;
  const schemas = new Map<string, unknown[]>();
  let everyBranch: Set<string> | undefined;
  for (const branch of branches) {
    const properties = isObject(branch) && isObject(branch.properties) ? branch.properties : {};
    for (const [name, value] of Object.entries(properties)) addSchema(schemas, name, value);
    const names = stringSet(isObject(branch) ? branch.required : undefined);
    everyBranch = everyBranch === undefined ? names : new Set([...everyBranch].filter((name) => names.has(name)));
  }
  const union: Record<string, unknown> = {};
  for (const [name, seen] of schemas) {
    const value = seen.length === 1 ? seen[0] : { anyOf: seen };
    Object.defineProperty(union, name, { value, enumerable: true, writable: true, configurable: true });
  }
  const properties: Record<string, unknown> = isObject(top.properties) ? { ...top.properties } : {};
  addMissing(properties, union);
  if (Object.keys(properties).length > 0) top.properties = properties;
  const required = stringSet(top.required);
  for (const name of everyBranch ?? []) if (Object.hasOwn(properties, name)) required.add(name);
  if (required.size > 0) top.required = [...required];
}

/** Notes one branch's schema of a property, once per distinct JSON. */
function addSchema(schemas: Map<string, unknown[]>, name: string, value: unknown): void {
  const seen = schemas.get(name) ?? [];
  const json = JSON.stringify(value);
  if (!seen.some((other) => JSON.stringify(other) === json)) seen.push(value);
  schemas.set(name, seen);
}

/** The strings of a `required` list (none for anything else). */
function stringSet(value: unknown): Set<string> {
  return new Set(Array.isArray(value) ? value.filter((name): name is string => typeof name === "string") : []);
}

/** Copies the entries of `from` that `into` lacks, as own properties (`__proto__` included). */
function addMissing(into: Record<string, unknown>, from: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(from)) {
    if (!Object.hasOwn(into, name))
      Object.defineProperty(into, name, { value, enumerable: true, writable: true, configurable: true });
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
