// A cheap structural check of a plain JSON Schema, run when a tool is defined: Ajv's meta-schema
// check needs Ajv, whose load and meta-schema compile cost about 130-150 ms of a new process, and
// that was paid at the first `defineTool` with a JSON Schema even when no tool was ever called.
// This check covers what the keywords' values must be (the mistakes a person makes: `type:
// "strin"`, `required: "a"`, `properties: []`); the validator's full meta-schema check still runs
// when it compiles the schema, at the first call, and refuses loudly there what this lets through.

import { encodePointerSegment } from "./json-pointer.js";
import type { JsonSchema } from "./json-schema.js";

const TYPES: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);
/** Keywords whose value is one schema. */
const ONE_SCHEMA = [
  "additionalProperties",
  "additionalItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
] as const;
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = ["properties", "patternProperties", "definitions", "$defs", "dependentSchemas"] as const;
/** Keywords whose value is a non-empty list of schemas. */
const SCHEMA_LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"] as const;
const COUNTS = [
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "maxProperties",
  "minProperties",
  "maxContains",
  "minContains",
] as const;
const NUMBERS = ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] as const;
const STRINGS = ["pattern", "format", "$ref", "$id", "$schema", "$anchor", "$comment", "title", "description"] as const;
const BOOLEANS = ["uniqueItems", "readOnly", "writeOnly", "deprecated"] as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isSchema = (value: unknown) => typeof value === "boolean" || isObject(value);
const isStringList = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

/**
 * Why `schema` is not structurally a JSON Schema (a keyword's value of the wrong kind), as
 * `schema/<path> must be ...`, or `undefined`. Iterative: a deeply nested schema does not
 * overflow the stack.
 */
export function explainMalformedJsonSchema(schema: JsonSchema): string | undefined {
  const stack: [unknown, string][] = [[schema, "schema"]];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const [node, at] = next;
    if (typeof node === "boolean") continue;
    if (!isObject(node)) return `${at} must be an object or a boolean`;
    const problem = keywordProblem(node, at, (child, where) => stack.push([child, where]));
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function keywordProblem(
  node: Record<string, unknown>,
  at: string,
  push: (schema: unknown, at: string) => void,
): string | undefined {
  return typeProblem(node, at) ?? subschemaProblem(node, at, push) ?? valueProblem(node, at) ?? dependencyProblem(node, at, push);
}

function pushAll(list: readonly unknown[], at: string, push: (schema: unknown, at: string) => void): void {
  for (const [index, item] of list.entries()) push(item, `${at}/${index}`);
}

function typeProblem(node: Record<string, unknown>, at: string): string | undefined {
  const type = node.type;
  if (type !== undefined) {
    const types = Array.isArray(type) ? type : [type];
    if (types.length === 0 || !types.every((name) => typeof name === "string" && TYPES.has(name))) {
      return `${at}/type must be one of ${[...TYPES].join(", ")}, or a non-empty list of them; got ${JSON.stringify(type)}`;
    }
    if (new Set(types).size !== types.length) return `${at}/type must not list a type twice`;
  }
  return undefined;
}

function subschemaProblem(
  node: Record<string, unknown>,
  at: string,
  push: (schema: unknown, at: string) => void,
): string | undefined {
  for (const key of ONE_SCHEMA) {
    if (node[key] === undefined) continue;
    if (!isSchema(node[key])) return `${at}/${key} must be a schema (an object or a boolean)`;
    push(node[key], `${at}/${key}`);
  }
  if (node.items !== undefined) {
    const items = node.items;
    if (Array.isArray(items)) pushAll(items, `${at}/items`, push);
    else if (isSchema(items)) push(items, `${at}/items`);
    else return `${at}/items must be a schema or a list of schemas`;
  }
  for (const key of SCHEMA_MAPS) {
    if (node[key] === undefined) continue;
    const map = node[key];
    if (!isObject(map)) return `${at}/${key} must be an object of schemas`;
    for (const [name, value] of Object.entries(map)) push(value, `${at}/${key}/${encodePointerSegment(name)}`);
  }
  for (const key of SCHEMA_LISTS) {
    if (node[key] === undefined) continue;
    const list = node[key];
    if (!Array.isArray(list) || list.length === 0) return `${at}/${key} must be a non-empty list of schemas`;
    pushAll(list, `${at}/${key}`, push);
  }
  return undefined;
}

function valueProblem(node: Record<string, unknown>, at: string): string | undefined {
  if (node.required !== undefined && !isStringList(node.required)) return `${at}/required must be a list of property names`;
  if (node.enum !== undefined && !Array.isArray(node.enum)) return `${at}/enum must be a list`;
  for (const key of COUNTS) {
    const value = node[key];
    if (value !== undefined && !(typeof value === "number" && Number.isInteger(value) && value >= 0)) {
      return `${at}/${key} must be a whole number at least 0`;
    }
  }
  for (const key of NUMBERS) {
    const value = node[key];
    // draft-04's boolean exclusiveMinimum/Maximum is not accepted by draft 7 or 2020-12 either.
    if (value !== undefined && typeof value !== "number") return `${at}/${key} must be a number`;
  }
  if (node.multipleOf !== undefined && !(typeof node.multipleOf === "number" && node.multipleOf > 0)) {
    return `${at}/multipleOf must be a number greater than 0`;
  }
  return literalProblem(node, at);
}

function literalProblem(node: Record<string, unknown>, at: string): string | undefined {
  for (const key of STRINGS) {
    if (node[key] !== undefined && typeof node[key] !== "string") return `${at}/${key} must be a string`;
  }
  for (const key of BOOLEANS) {
    if (node[key] !== undefined && typeof node[key] !== "boolean") return `${at}/${key} must be a boolean`;
  }
  if (node.dependentRequired !== undefined) {
    const map = node.dependentRequired;
    if (!isObject(map) || !Object.values(map).every(isStringList))
      return `${at}/dependentRequired must map names to lists of names`;
  }
  return undefined;
}

function dependencyProblem(
  node: Record<string, unknown>,
  at: string,
  push: (schema: unknown, at: string) => void,
): string | undefined {
  if (node.dependencies !== undefined) {
    const map = node.dependencies;
    if (!isObject(map)) return `${at}/dependencies must be an object`;
    for (const [name, value] of Object.entries(map)) {
      if (isStringList(value)) continue;
      if (!isSchema(value)) return `${at}/dependencies/${encodePointerSegment(name)} must be a schema or a list of names`;
      push(value, `${at}/dependencies/${encodePointerSegment(name)}`);
    }
  }
  return undefined;
}
