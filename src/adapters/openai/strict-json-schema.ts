import type { JsonObjectSchema, JsonSchema } from "agent-tool-catalog";
import { encodePointerSegment } from "../../tool/json-pointer.js";

/**
 * The strict form of a schema, or why there is none.
 *
 * @public
 */
export type StrictJsonSchemaConversion =
  | {
      /** Discriminant. */
      readonly ok: true;
      /** The schema in OpenAI strict-mode form. */
      readonly schema: JsonObjectSchema;
    }
  | {
      /** Discriminant. */
      readonly ok: false;
      /** What strict mode cannot express, e.g. `unsupported keyword "patternProperties"`. */
      readonly reason: string;
      /** Where, as a JSON Pointer into the original schema (`""` for the root). */
      readonly path: string;
    };

type SchemaObject = Record<string, unknown>;

// What OpenAI documents for strict mode (Structured Outputs, "Supported schemas").
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
const FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const CONSTRAINTS = new Set([
  "pattern",
  "multipleOf",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minItems",
  "maxItems",
]);
const ANNOTATIONS = new Set(["description", "title"]);
// Annotations with no effect on what a value may be, which strict mode has no use for.
const DROPPED = new Set(["$comment", "$id", "$schema", "examples", "readOnly", "writeOnly", "deprecated"]);
const STRUCTURE = new Set(["type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf", "oneOf"]);
const MAX_OBJECT_DEPTH = 10;
const MAX_PROPERTIES = 5000;
const MAX_ENUM_VALUES = 1000;
// OpenAI's other size limits: property names, definition names, enum and const values together
// at most 120,000 characters; one enum of more than 250 string values at most 15,000. A schema
// over them is refused with a 400 that fails the whole request, every other tool's turn with it.
const MAX_SCHEMA_STRING_LENGTH = 120_000;
const LARGE_ENUM_VALUES = 250;
const MAX_LARGE_ENUM_STRING_LENGTH = 15_000;

/** Thrown inside the walk to give up; caught by {@link convertToStrictJsonSchema}. */
class NotStrict extends Error {
  constructor(
    readonly path: string,
    reason: string,
  ) {
    super(reason);
  }
}

interface Walk {
  readonly root: SchemaObject;
  properties: number;
  enumValues: number;
  /** Characters of property and definition names, enum and const values so far. */
  stringLength: number;
}

/**
 * Converts a tool's JSON Schema to OpenAI's strict-mode form, or says why it cannot.
 *
 * The conversion: every object gets `additionalProperties: false` and lists all its properties in
 * `required`; an optional property becomes nullable (`type: ["string", "null"]`, or `anyOf` with
 * `{ type: "null" }` for enums, unions and references); `oneOf` becomes `anyOf`; a `default` moves
 * into the property's description (the run applies it when the property is left out, see
 * `stripOptionalNulls`); annotations strict mode has no use for (`examples`, `$comment`, ...)
 * are dropped.
 *
 * It gives up on what strict mode does not support instead of weakening the schema: keywords
 * outside OpenAI's documented subset (`patternProperties`, `propertyNames`, `allOf`, `not`,
 * `if`/`then`/`else`, `minLength`/`maxLength`, `uniqueItems`, ...), `additionalProperties` other
 * than `false`, open objects with no `properties`, values with no `type`, string formats other than
 * `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6` and `uuid`, a union
 * at the root, more than 10 levels of nested objects, 5,000 properties or 1,000 enum values,
 * property and definition names, enum and const values of more than 120,000 characters in all, or
 * an enum of more than 250 values longer than 15,000 characters (OpenAI refuses the whole request
 * for such a schema; sent with `strict: false`, the tool stays callable).
 * @public
 */
export function convertToStrictJsonSchema(schema: JsonSchema): StrictJsonSchemaConversion {
  const root = schema as SchemaObject;
  try {
    if (root.type !== "object") throw new NotStrict("", 'the root must have type "object"');
    if ("anyOf" in root || "oneOf" in root) throw new NotStrict("", "the root must not be a union");
    const walk: Walk = { root, properties: 0, enumValues: 0, stringLength: 0 };
    const { $defs, definitions, ...rest } = root;
    const converted = convertNode(rest, "", walk, 0);
    if ($defs !== undefined) converted.$defs = convertDefinitions($defs, "/$defs", walk);
    if (definitions !== undefined) converted.definitions = convertDefinitions(definitions, "/definitions", walk);
    return { ok: true, schema: converted as JsonObjectSchema };
  } catch (error) {
    if (error instanceof NotStrict) return { ok: false, reason: error.message, path: error.path };
    throw error;
  }
}

/**
 * The strict-mode form of `schema` (see {@link convertToStrictJsonSchema}), or `undefined` when
 * strict mode cannot express it; such a tool is then sent with `strict: false`.
 * @public
 */
export function toStrictJsonSchema(schema: JsonSchema): JsonObjectSchema | undefined {
  const conversion = convertToStrictJsonSchema(schema);
  return conversion.ok ? conversion.schema : undefined;
}

function convertDefinitions(definitions: unknown, path: string, walk: Walk): SchemaObject {
  if (!isSchemaObject(definitions)) throw new NotStrict(path, "definitions must be an object of schemas");
  const out: SchemaObject = {};
  for (const [name, definition] of Object.entries(definitions)) {
    countString(walk, name, path);
    setOwn(out, name, convertNode(definition, `${path}/${encodePointerSegment(name)}`, walk, 0));
  }
  return out;
}

function convertNode(node: unknown, path: string, walk: Walk, depth: number): SchemaObject {
  if (!isSchemaObject(node)) throw new NotStrict(path, "a boolean or non-object schema has no strict form");
  for (const key of Object.keys(node)) {
    const known = ANNOTATIONS.has(key) || DROPPED.has(key) || STRUCTURE.has(key) || CONSTRAINTS.has(key);
    if (!known && key !== "$ref" && key !== "default" && key !== "format") {
      throw new NotStrict(path, `unsupported keyword ${JSON.stringify(key)}`);
    }
  }
  if ("$ref" in node) return convertReference(node, path);
  const out: SchemaObject = {};
  for (const key of ANNOTATIONS) if (key in node) out[key] = node[key];
  const types = typeList(node.type, path);
  if (types !== undefined) out.type = node.type;
  convertValues(node, out, path, walk);
  if ("anyOf" in node || "oneOf" in node) out.anyOf = convertUnion(node, path, walk, depth);
  if (types === undefined && out.enum === undefined && !("const" in out) && out.anyOf === undefined) {
    throw new NotStrict(path, "a value with no type (any JSON) has no strict form");
  }
  if (types?.includes("object") === true) convertObject(node, out, path, walk, depth + 1);
  if ("items" in node || types?.includes("array") === true) out.items = convertItems(node.items, path, walk, depth);
  copyConstraints(node, out, path);
  if ("default" in node) out.description = withDefault(out.description, node.default);
  return out;
}

function convertReference(node: SchemaObject, path: string): SchemaObject {
  const reference = node.$ref;
  if (typeof reference !== "string" || !(reference === "#" || reference.startsWith("#/"))) {
    throw new NotStrict(path, "only local $ref (#/...) is supported");
  }
  const out: SchemaObject = { $ref: reference };
  for (const [key, value] of Object.entries(node)) {
    if (key === "$ref" || DROPPED.has(key)) continue;
    if (!ANNOTATIONS.has(key)) throw new NotStrict(path, `keyword ${JSON.stringify(key)} beside $ref`);
    out[key] = value;
  }
  return out;
}

function typeList(type: unknown, path: string): readonly string[] | undefined {
  if (type === undefined) return undefined;
  const types = typeof type === "string" ? [type] : type;
  if (!Array.isArray(types) || types.length === 0 || !types.every((entry) => typeof entry === "string" && TYPES.has(entry))) {
    throw new NotStrict(path, `unsupported type ${JSON.stringify(type)}`);
  }
  if (types.includes("object") && types.includes("array")) throw new NotStrict(path, "a value both object and array");
  return types as readonly string[];
}

function convertValues(node: SchemaObject, out: SchemaObject, path: string, walk: Walk): void {
  if ("enum" in node) {
    const values = node.enum;
    if (!Array.isArray(values) || values.length === 0 || !values.every(isScalar)) {
      throw new NotStrict(`${path}/enum`, "enum must list strings, numbers, booleans or null");
    }
    walk.enumValues += values.length;
    if (walk.enumValues > MAX_ENUM_VALUES) throw new NotStrict(`${path}/enum`, `more than ${MAX_ENUM_VALUES} enum values`);
    const length = values.reduce((sum: number, value) => sum + String(value).length, 0);
    if (
      values.length > LARGE_ENUM_VALUES &&
      values.some((value) => typeof value === "string") &&
      length > MAX_LARGE_ENUM_STRING_LENGTH
    ) {
      throw new NotStrict(
        `${path}/enum`,
        `an enum of more than ${LARGE_ENUM_VALUES} values longer than ${MAX_LARGE_ENUM_STRING_LENGTH} characters in all`,
      );
    }
    countLength(walk, length, `${path}/enum`);
    out.enum = [...values];
  }
  if ("const" in node) {
    if (!isScalar(node.const)) throw new NotStrict(`${path}/const`, "const must be a string, number, boolean or null");
    countString(walk, String(node.const), `${path}/const`);
    out.const = node.const;
  }
}

function convertUnion(node: SchemaObject, path: string, walk: Walk, depth: number): SchemaObject[] {
  if ("anyOf" in node && "oneOf" in node) throw new NotStrict(path, "anyOf and oneOf together");
  const keyword = "anyOf" in node ? "anyOf" : "oneOf";
  const branches = node[keyword];
  if (!Array.isArray(branches) || branches.length === 0)
    throw new NotStrict(`${path}/${keyword}`, `${keyword} must list schemas`);
  // oneOf becomes anyOf (strict mode has no oneOf); the run still validates against the original.
  return branches.map((branch, index) => convertNode(branch, `${path}/${keyword}/${index}`, walk, depth));
}

function convertObject(node: SchemaObject, out: SchemaObject, path: string, walk: Walk, depth: number): void {
  if (depth > MAX_OBJECT_DEPTH) throw new NotStrict(path, `objects nested more than ${MAX_OBJECT_DEPTH} levels deep`);
  const { properties, required = [], additionalProperties } = node;
  if (additionalProperties !== undefined && additionalProperties !== false) {
    throw new NotStrict(`${path}/additionalProperties`, "additionalProperties must be false (or absent)");
  }
  if (properties === undefined && additionalProperties !== false) {
    throw new NotStrict(path, "an open object with no properties has no strict form");
  }
  if (properties !== undefined && !isSchemaObject(properties))
    throw new NotStrict(`${path}/properties`, "properties must be an object");
  if (!Array.isArray(required) || !required.every((name) => typeof name === "string")) {
    throw new NotStrict(`${path}/required`, "required must list property names");
  }
  const declared = properties ?? {};
  const missing = required.find((name) => !Object.hasOwn(declared, name));
  if (missing !== undefined)
    throw new NotStrict(`${path}/required`, `required property ${JSON.stringify(missing)} has no schema`);
  const converted: SchemaObject = {};
  for (const [name, child] of Object.entries(declared)) {
    walk.properties += 1;
    if (walk.properties > MAX_PROPERTIES) throw new NotStrict(path, `more than ${MAX_PROPERTIES} properties`);
    countString(walk, name, path);
    const schema = convertNode(child, `${path}/properties/${encodePointerSegment(name)}`, walk, depth);
    setOwn(converted, name, required.includes(name) ? schema : nullable(schema));
  }
  out.properties = converted;
  out.required = Object.keys(converted);
  out.additionalProperties = false;
}

function convertItems(items: unknown, path: string, walk: Walk, depth: number): SchemaObject {
  if (items === undefined) throw new NotStrict(path, "an array with no items schema has no strict form");
  if (Array.isArray(items)) throw new NotStrict(`${path}/items`, "tuple items are not supported");
  return convertNode(items, `${path}/items`, walk, depth);
}

function copyConstraints(node: SchemaObject, out: SchemaObject, path: string): void {
  for (const key of CONSTRAINTS) if (key in node) out[key] = node[key];
  if ("format" in node) {
    if (typeof node.format !== "string" || !FORMATS.has(node.format)) {
      throw new NotStrict(`${path}/format`, `unsupported format ${JSON.stringify(node.format)}`);
    }
    out.format = node.format;
  }
}

function countString(walk: Walk, value: string, path: string): void {
  countLength(walk, value.length, path);
}

function countLength(walk: Walk, length: number, path: string): void {
  walk.stringLength += length;
  if (walk.stringLength > MAX_SCHEMA_STRING_LENGTH) {
    throw new NotStrict(
      path,
      `property and definition names, enum and const values longer than ${MAX_SCHEMA_STRING_LENGTH} characters in all`,
    );
  }
}

/** The schema, also accepting `null`: how strict mode says "may be left out". */
function nullable(schema: SchemaObject): SchemaObject {
  if (acceptsNullDirectly(schema)) return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  const plainType = "type" in schema && !("enum" in schema) && !("const" in schema) && !("$ref" in schema);
  if (plainType) {
    const types = typeof schema.type === "string" ? [schema.type] : (schema.type as readonly string[]);
    return { ...schema, type: [...types, "null"] };
  }
  const { description, title, ...rest } = schema;
  const annotations = { ...(title === undefined ? {} : { title }), ...(description === undefined ? {} : { description }) };
  return { ...annotations, anyOf: [rest, { type: "null" }] };
}

function acceptsNullDirectly(schema: SchemaObject): boolean {
  if (Array.isArray(schema.enum)) return schema.enum.includes(null);
  if ("const" in schema) return schema.const === null;
  if (Array.isArray(schema.anyOf)) return schema.anyOf.some((branch) => isSchemaObject(branch) && acceptsNullDirectly(branch));
  const { type } = schema;
  return type === "null" || (Array.isArray(type) && type.includes("null"));
}

function withDefault(description: unknown, value: unknown): string {
  const note = `Default: ${JSON.stringify(value)}.`;
  return typeof description === "string" && description !== "" ? `${description} (${note})` : note;
}

function isSchemaObject(value: unknown): value is SchemaObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}

/**
 * `target[key] = value` for a key the schema's author chose: defined, since assigning a property
 * named "__proto__" sets the prototype instead, and the property would vanish from the strict schema
 * (while `required` and `additionalProperties: false` made the tool impossible to call).
 */
function setOwn(target: SchemaObject, key: string, value: SchemaObject): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
