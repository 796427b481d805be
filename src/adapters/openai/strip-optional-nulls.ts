import type { JsonSchema } from "agent-tool-catalog";
import { decodePointerSegment } from "../../tool/json-pointer.js";

type SchemaObject = Record<string, unknown>;

const MAX_DEPTH = 64;

/**
 * Undoes what strict mode does to optional fields: the model must send every property, so it sends
 * `null` for the ones it means to leave out. This removes each `null` that the *original* schema
 * would refuse where it allows the property to be absent (an optional property that does not accept
 * `null`), at the top level and in nested objects, array items and `anyOf`/`oneOf` branches (the
 * branch whose properties match the value's keys). A `null` the original schema accepts is kept.
 * A left-out property then gets its `default`, as if the model had not sent it.
 *
 * The run validates against the original schema, so without this a strict tool's call would fail
 * with `invalid_input` on every omitted optional field. The call runners apply it to every
 * function call; it is exported for hosts that call `run.call()` themselves.
 *
 * @param schema - the tool's original input schema (`descriptor.inputSchema`), not the strict one
 * @returns `value` itself when nothing was removed, else a copy without those `null`s
 * @public
 */
export function stripOptionalNulls(schema: JsonSchema, value: unknown): unknown {
  return strip(schema, value, schema as SchemaObject, 0);
}

function strip(node: unknown, value: unknown, root: SchemaObject, depth: number): unknown {
  const schema = resolve(node, root);
  if (schema === undefined || depth > MAX_DEPTH || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) {
    const { items } = schema;
    if (!isSchemaObject(items)) return value;
    const stripped = value.map((item) => strip(items, item, root, depth + 1));
    return stripped.every((item, index) => item === value[index]) ? value : stripped;
  }
  const branch = matchingBranch(schema, value, root);
  if (branch !== undefined) return strip(branch, value, root, depth + 1);
  const { properties } = schema;
  if (!isSchemaObject(properties)) return value;
  const required = Array.isArray(schema.required) ? schema.required : [];
  let changed = false;
  const entries: [string, unknown][] = [];
  for (const [key, item] of Object.entries(value)) {
    const child = Object.hasOwn(properties, key) ? properties[key] : undefined;
    if (item === null && child !== undefined && !required.includes(key) && !acceptsNull(child, root, 0)) {
      changed = true;
      continue;
    }
    const next = child === undefined ? item : strip(child, item, root, depth + 1);
    changed ||= next !== item;
    entries.push([key, next]);
  }
  // fromEntries defines own properties, so a key such as "__proto__" stays data.
  return changed ? Object.fromEntries(entries) : value;
}

/** In a union, the object branch whose property names are exactly the value's keys (strict mode sends them all). */
function matchingBranch(schema: SchemaObject, value: object, root: SchemaObject): SchemaObject | undefined {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (branches === undefined) return undefined;
  const keys = Object.keys(value);
  const matches = branches
    .map((branch) => resolve(branch, root))
    .filter((branch): branch is SchemaObject => {
      const properties = branch?.properties;
      if (!isSchemaObject(properties)) return false;
      const names = Object.keys(properties);
      return names.length === keys.length && keys.every((key) => Object.hasOwn(properties, key));
    });
  return matches.length === 1 ? matches[0] : undefined;
}

/** True when the schema accepts `null` (or cannot be read, so `null` is left alone). */
function acceptsNull(node: unknown, root: SchemaObject, depth: number): boolean {
  const schema = resolve(node, root);
  if (schema === undefined || depth > MAX_DEPTH) return true;
  if (schema.nullable === true) return true;
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ("const" in schema) return schema.const === null;
  const branches = [schema.anyOf, schema.oneOf].filter(Array.isArray).flat();
  if (branches.length > 0) return branches.some((branch) => acceptsNull(branch, root, depth + 1));
  const { type } = schema;
  if (type === undefined) return true;
  return type === "null" || (Array.isArray(type) && type.includes("null"));
}

/** Follows local `$ref`s (`#`, `#/$defs/...`, any JSON Pointer into the root). */
function resolve(node: unknown, root: SchemaObject): SchemaObject | undefined {
  let current = node;
  for (let hops = 0; hops < 32; hops++) {
    if (!isSchemaObject(current)) return undefined;
    const reference = current.$ref;
    if (typeof reference !== "string") return current;
    current = pointer(root, reference);
  }
  return undefined;
}

function pointer(root: SchemaObject, reference: string): unknown {
  if (reference === "#") return root;
  if (!reference.startsWith("#/")) return undefined;
  let current: unknown = root;
  for (const raw of reference.slice(2).split("/")) {
    const segment = decodePointerSegment(raw);
    if (segment === undefined || !isSchemaObject(current) || !Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
