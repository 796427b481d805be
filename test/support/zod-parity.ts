import fc from "fast-check";
import { expect } from "vitest";
import { compileSchema } from "../../src/tool/input-schema.js";
import { JsonSchemaCompiler } from "../../src/tool/json-schema-validator.js";

// The package's own tools moved from zod to src/tool/object-schema.ts; these checks hold the new
// schemas to what the zod ones gave: the same JSON Schema bytes and, for any input, the same
// parsed value or the same issues (path and message).

function compiled(schema: unknown) {
  const result = compileSchema(schema, new JsonSchemaCompiler());
  if (!result.ok) throw new Error(result.reason);
  return result.schema;
}

/** The JSON Schema sent to providers, as text (key order included). */
export function jsonSchemaText(schema: unknown): string {
  return JSON.stringify(compiled(schema).jsonSchema);
}

async function outcome(schema: ReturnType<typeof compiled>, value: unknown) {
  const result = await schema.validate(value);
  if (!result.ok) return { issues: result.issues };
  const parsed = result.value as Record<string, unknown>;
  return { value: parsed, keys: Object.keys(parsed) };
}

/** Values around what a schema of strings, integers, booleans, enums and arrays checks. */
function fieldValue(words: readonly string[]): fc.Arbitrary<unknown> {
  const text = fc.oneof(
    fc.constantFrom("", " ", "  x  ", "\t\n", "\u{1F600}", "a\u{1F600}", "\uD800", ...words),
    fc.string({ unit: "grapheme", minLength: 500, maxLength: 1100 }),
    fc.string({ unit: "binary", maxLength: 8 }),
    fc.string({ maxLength: 8 }),
    fc.string({ minLength: 995, maxLength: 1005 }),
    fc.string({ minLength: 1995, maxLength: 2005 }),
  );
  const number = fc.oneof(
    fc.integer({ min: -3, max: 1002 }),
    fc.constantFrom(
      199,
      200,
      201,
      1000,
      200_000,
      200_001,
      2 ** 60,
      -(2 ** 60),
      -0,
      0.5,
      1.5,
      -1.5,
      Number.NaN,
      Infinity,
      -Infinity,
    ),
    fc.double(),
  );
  const scalar = fc.oneof(
    text,
    number,
    fc.boolean(),
    fc.constantFrom(null, undefined, 5n, new Date(0), { length: 0 }, { length: "9" }, { length: 5000 }, { length: null }),
  );
  return fc.oneof(
    { weight: 4, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(scalar, { maxLength: 10 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("x", "y", "__proto__"), scalar, { maxKeys: 3 }) },
  );
}

/** Objects with some of `keys` (and others), each value anything `fieldValue` makes. */
export function inputs(keys: readonly string[], words: readonly string[] = []): fc.Arbitrary<unknown> {
  const object = fc.dictionary(fc.constantFrom(...keys, "extra"), fieldValue(words), { maxKeys: keys.length + 1 });
  return fc.oneof({ weight: 12, arbitrary: object }, { weight: 1, arbitrary: fieldValue(words) });
}

/** Checks that `actual` parses every generated input as `expected` (a zod schema) does. */
export async function expectSameParsing(actual: unknown, expected: unknown, arbitrary: fc.Arbitrary<unknown>, runs = 3000) {
  const [mine, zods] = [compiled(actual), compiled(expected)];
  await fc.assert(
    fc.asyncProperty(arbitrary, async (value) => {
      expect(await outcome(mine, value)).toEqual(await outcome(zods, value));
    }),
    // No shrinking: a failure is reported as found (shrinking long strings took minutes).
    { numRuns: runs, endOnFailure: true },
  );
}
