import type { StandardSchemaV1 } from "./standard-schema.js";

// The package's own tools with simple inputs (find_tool, toolbox, the git tools) describe them
// with these builders instead of zod: importing zod costs about 0.1 s of CPU in a new process
// (its module graph, locales included), more than everything else the root and git entries load.
// The JSON Schema, the parsed value and every issue message are the ones zod 4 gives for the
// equivalent schema (object-schema.test.ts checks them against zod on random inputs), so a model
// sees the same definitions and the same errors.

type Path = PropertyKey[];

/** An issue found while parsing, with its path from the object's root. */
interface FieldIssue {
  readonly path: Path;
  readonly message: string;
}

const FAILED: unique symbol = Symbol("failed");

/** A value checker with its JSON Schema (without description). */
export interface Field<T> {
  /** The JSON Schema keywords, in zod's order. */
  readonly json: () => Record<string, unknown>;
  /** The parsed value, or `FAILED` after adding issues. */
  readonly parse: (value: unknown, path: Path, issues: FieldIssue[]) => T | typeof FAILED;
}

/** A property of an object schema: its field, whether it may be absent, its description. */
export interface Property<T, Optional extends boolean> {
  readonly field: Field<T>;
  readonly optional: Optional;
  readonly description: string | undefined;
}

/** zod's name for what a value is, as its messages print it. */
function receivedType(value: unknown): string {
  if (typeof value === "number") return Number.isNaN(value) ? "NaN" : Number.isFinite(value) ? "number" : String(value);
  if (typeof value !== "object") return typeof value;
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  const maker = Object.getPrototypeOf(value) !== Object.prototype && "constructor" in value ? value.constructor : undefined;
  return typeof maker === "function" && maker.name !== "" ? maker.name : "object";
}

function invalidType(expected: string, value: unknown, path: Path, issues: FieldIssue[]): typeof FAILED {
  issues.push({ path, message: `Invalid input: expected ${expected}, received ${receivedType(value)}` });
  return FAILED;
}

/** Length bounds of a string or an array. */
export interface LengthBounds {
  readonly min?: number;
  readonly max?: number;
}

/** Length in code points, as zod 4.6 counts a string's (a surrogate pair is one character). */
function codePoints(text: string): number {
  let count = text.length;
  for (let index = 0; index < text.length - 1; index++) {
    const unit = text.charCodeAt(index);
    if ((unit & 0xfc00) === 0xd800 && (text.charCodeAt(index + 1) & 0xfc00) === 0xdc00) {
      count--;
      index++;
    }
  }
  return count;
}

/**
 * zod's length checks: they also run on a value of the wrong type that has a `length` (an array
 * given for a string), and name what it is. Returns whether the value passed.
 */
function checkLength(value: unknown, bounds: LengthBounds, path: Path, issues: FieldIssue[]): boolean {
  if (value === null || value === undefined) return true;
  const units = (value as { length?: unknown }).length;
  if (units === undefined) return true;
  const origin = Array.isArray(value) ? "array" : typeof value === "string" ? "string" : "unknown";
  const unit = origin === "string" ? " characters" : origin === "array" ? " items" : "";
  const verb = origin === "unknown" ? "to be" : "to have";
  // Plain comparisons on purpose: a `length` that is not a number compares as it does in zod. A
  // string is counted in code points only where that can change the answer (never more than
  // its length in units, never less than half).
  const { min, max } = bounds;
  const counted = (fits: boolean) => (typeof value === "string" && !fits ? codePoints(value) : (units as number));
  const before = issues.length;
  if (min !== undefined && !(counted((units as number) < min || (units as number) >= 2 * min) >= min))
    issues.push({ path, message: `Too small: expected ${origin} ${verb} >=${min}${unit}` });
  if (max !== undefined && !(counted((units as number) <= max) <= max))
    issues.push({ path, message: `Too big: expected ${origin} ${verb} <=${max}${unit}` });
  return issues.length === before;
}

/** A string; `trim` removes surrounding white space before the length is checked. */
export function stringField(options: LengthBounds & { readonly trim?: boolean } = {}): Field<string> {
  const { min, max, trim = false } = options;
  return {
    json: () => ({
      type: "string",
      ...(min === undefined ? {} : { minLength: min }),
      ...(max === undefined ? {} : { maxLength: max }),
    }),
    parse: (value, path, issues) => {
      if (typeof value !== "string") {
        invalidType("string", value, path, issues);
        checkLength(value, options, path, issues);
        return FAILED;
      }
      const text = trim ? value.trim() : value;
      return checkLength(text, options, path, issues) ? text : FAILED;
    },
  };
}

/** An integer within `min` and `max`. */
export function integerField(options: { readonly min?: number; readonly max?: number } = {}): Field<number> {
  const { min, max } = options;
  return {
    json: () => ({
      type: "integer",
      ...(min === undefined ? {} : { minimum: min }),
      ...(max === undefined ? {} : { maximum: max }),
    }),
    parse: (value, path, issues) => {
      if (typeof value !== "number" || !Number.isFinite(value)) return invalidType("number", value, path, issues);
      if (!Number.isInteger(value)) return invalidType("int", value, path, issues);
      const before = issues.length;
      if (value > Number.MAX_SAFE_INTEGER)
        issues.push({ path, message: `Too big: expected int to be <=${Number.MAX_SAFE_INTEGER}` });
      if (value < Number.MIN_SAFE_INTEGER)
        issues.push({ path, message: `Too small: expected int to be >=${Number.MIN_SAFE_INTEGER}` });
      if (min !== undefined && value < min) issues.push({ path, message: `Too small: expected number to be >=${min}` });
      if (max !== undefined && value > max) issues.push({ path, message: `Too big: expected number to be <=${max}` });
      return issues.length === before ? value : FAILED;
    },
  };
}

/** `true` or `false`. */
export function booleanField(): Field<boolean> {
  return {
    json: () => ({ type: "boolean" }),
    parse: (value, path, issues) => (typeof value === "boolean" ? value : invalidType("boolean", value, path, issues)),
  };
}

/** One of the given strings. */
export function enumField<const Values extends readonly [string, ...string[]]>(values: Values): Field<Values[number]> {
  const allowed = new Set<unknown>(values);
  const listed = values.map((value) => JSON.stringify(value));
  const message =
    values.length === 1 ? `Invalid input: expected ${listed[0]}` : `Invalid option: expected one of ${listed.join("|")}`;
  return {
    json: () => ({ type: "string", enum: [...values] }),
    parse: (value, path, issues) => {
      if (allowed.has(value)) return value as Values[number];
      issues.push({ path, message });
      return FAILED;
    },
  };
}

/** An array of `item`. */
export function arrayField<T>(item: Field<T>, options: LengthBounds = {}): Field<T[]> {
  const { min, max } = options;
  return {
    json: () => ({
      ...(min === undefined ? {} : { minItems: min }),
      ...(max === undefined ? {} : { maxItems: max }),
      type: "array",
      items: item.json(),
    }),
    parse: (value, path, issues) => {
      if (!Array.isArray(value)) {
        invalidType("array", value, path, issues);
        checkLength(value, options, path, issues);
        return FAILED;
      }
      // An array over the maximum is refused before any item is parsed.
      if (max !== undefined && value.length > max) return checkLength(value, { max }, path, issues) ? value : FAILED;
      const before = issues.length;
      const out: T[] = [];
      for (let index = 0; index < value.length; index++) {
        const parsed = item.parse(value[index], [...path, index], issues);
        if (parsed !== FAILED) out.push(parsed);
      }
      if (min !== undefined) checkLength(value, { min }, path, issues);
      return issues.length === before ? out : FAILED;
    },
  };
}

function isObject(value: unknown): value is Record<PropertyKey, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Any object, copied shallowly with every key (zod's `looseObject({})`). */
export function looseObjectField(): Field<Record<string, unknown>> {
  return {
    json: () => ({ type: "object", properties: {}, additionalProperties: {} }),
    parse: (value, path, issues) => {
      if (!isObject(value)) return invalidType("object", value, path, issues);
      const out: Record<string, unknown> = {};
      // `for...in` and the `__proto__` skip are zod's: an assignment of that key would replace
      // the copy's prototype.
      for (const key in value) if (key !== "__proto__") out[key] = value[key];
      return out;
    },
  };
}

/** A property that must be present. */
export function required<T>(field: Field<T>, description?: string): Property<T, false> {
  return { field, optional: false, description };
}

/** A property that may be absent (or `undefined`). */
export function optional<T>(field: Field<T>, description?: string): Property<T, true> {
  return { field, optional: true, description };
}

// biome-ignore lint/suspicious/noExplicitAny: a shape holds properties of any value type.
type Shape = Readonly<Record<string, Property<any, boolean>>>;

type ValueOf<P> = P extends Property<infer T, boolean> ? T : never;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends Property<unknown, false> ? K : never }[keyof S];
type OptionalKeys<S extends Shape> = Exclude<keyof S, RequiredKeys<S>>;

/** What an object schema of `S` parses to. */
export type ObjectOutput<S extends Shape> = { [K in RequiredKeys<S>]: ValueOf<S[K]> } & {
  [K in OptionalKeys<S>]?: ValueOf<S[K]> | undefined;
} extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

/** A Standard Schema with its JSON Schema (the Standard JSON Schema `input` converter). */
export interface ObjectSchema<Output> extends StandardSchemaV1<unknown, Output> {
  readonly "~standard": StandardSchemaV1.Props<unknown, Output> & {
    readonly jsonSchema: {
      readonly input: (options?: { readonly target?: string }) => Record<string, unknown>;
      readonly output: (options?: { readonly target?: string }) => Record<string, unknown>;
    };
  };
}

/** zod puts a described optional's description first, a required one's after its keywords. */
function propertyJson(property: Property<unknown, boolean>): Record<string, unknown> {
  const { description } = property;
  if (description === undefined) return property.field.json();
  return property.optional ? { description, ...property.field.json() } : { ...property.field.json(), description };
}

/**
 * An object of the given properties (zod's `z.object`: unknown keys are dropped, issues come in
 * property order) as a Standard Schema that the catalog compiles like any other.
 */
export function objectSchema<const S extends Shape>(shape: S): ObjectSchema<ObjectOutput<S>> {
  const keys = Object.keys(shape);
  const json = () => {
    const properties: Record<string, unknown> = {};
    for (const key of keys) properties[key] = propertyJson(shape[key] as Property<unknown, boolean>);
    const requiredKeys = keys.filter((key) => !(shape[key] as Property<unknown, boolean>).optional);
    return { type: "object", properties, ...(requiredKeys.length === 0 ? {} : { required: requiredKeys }) };
  };
  const validate = (value: unknown): StandardSchemaV1.Result<ObjectOutput<S>> => {
    const issues: FieldIssue[] = [];
    if (!isObject(value)) {
      invalidType("object", value, [], issues);
      return { issues };
    }
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      const property = shape[key] as Property<unknown, boolean>;
      const present = key in value;
      const entry = value[key];
      if (property.optional && entry === undefined) {
        if (present) out[key] = undefined;
        continue;
      }
      const parsed = property.field.parse(entry, [key], issues);
      if (parsed !== FAILED) out[key] = parsed;
    }
    return issues.length === 0 ? { value: out as ObjectOutput<S> } : { issues };
  };
  return {
    "~standard": { version: 1, vendor: "agent-tool-catalog", validate, jsonSchema: { input: json, output: json } },
  };
}

/** What an {@link ObjectSchema} parses to. */
export type OutputOf<Schema> = Schema extends ObjectSchema<infer Output> ? Output : never;
