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
 * `required` of `allOf` branches join the top level. The run still checks every call against the
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
