import { Ajv } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stripOptionalNulls } from "../adapters/openai/strip-optional-nulls.js";
import { decodePointerSegment } from "./json-pointer.js";
import { explainUncompilableJsonSchema } from "./json-schema-references.js";

// JSON-pointer segments of `$ref`s are read in two places: the check run when a schema is given
// (`explainUncompilableJsonSchema`) and the OpenAI adapter's `stripOptionalNulls`. They once
// decoded malformed percent-encoding differently (one found `#/$defs/100%`, the other did not).
// Both must name the node Ajv, which validates the calls, names.

const piece = fc.constantFrom("a", "~", "~0", "~1", "/", "%", "%25", "%2F", "%7E", "%7e", "%E2%82%AC", "%E2%82", "€", " ");
const text = fc.array(piece, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(""));
/** A definition's name and how the `$ref` names it: well encoded, written as it is, or any other text. */
const target = fc.tuple(text, fc.oneof(fc.constant("encoded" as const), fc.constant("as written" as const), text));

function encode(name: string): string {
  return encodeURIComponent(name.replaceAll("~", "~0").replaceAll("/", "~1"));
}

function schemaOf(name: string, segment: string) {
  return {
    type: "object",
    properties: { x: { $ref: `#/$defs/${segment}` } },
    $defs: { [name]: { type: "object", properties: { opt: { type: "string" } } } },
  } as const;
}

// One instance: a new Ajv per case costs tens of milliseconds (schemas without $id never clash).
const ajv = new Ajv({ strict: false });

describe("a $ref's JSON-pointer segments are decoded alike everywhere", () => {
  it("the schema check, stripOptionalNulls and Ajv agree on which $ref reaches the definition (fast-check)", () => {
    fc.assert(
      fc.property(target, ([name, how]) => {
        const segment = how === "encoded" ? encode(name) : how === "as written" ? name : how;
        const schema = schemaOf(name, segment);
        const checked = explainUncompilableJsonSchema(schema) === undefined;
        // The adapter follows the $ref when it can: it then drops the optional property's null.
        const stripped = stripOptionalNulls(schema, { x: { opt: null } });
        const followed = JSON.stringify(stripped) === JSON.stringify({ x: {} });
        let compiled = true;
        try {
          ajv.compile(schema);
        } catch {
          compiled = false;
        }
        expect({ checked, followed }).toEqual({ checked: compiled, followed: compiled });
        // A segment made by the RFC 6901 + URI encoder always reaches its definition.
        if (how === "encoded") expect(compiled).toBe(true);
        // A raw "/" splits the pointer: only a single segment decodes to the name on its own.
        if (!segment.includes("/")) expect(decodePointerSegment(segment) === name).toBe(compiled);
      }),
      { numRuns: 300 },
    );
  });

  it("decodes ~0, ~1 and percent-encoding, and refuses malformed percent-encoding", () => {
    expect(decodePointerSegment("a~1b")).toBe("a/b");
    expect(decodePointerSegment("a~0b")).toBe("a~b");
    // RFC 6901: ~01 is "~1", not "/".
    expect(decodePointerSegment("~01")).toBe("~1");
    expect(decodePointerSegment("a%2Fb")).toBe("a/b");
    expect(decodePointerSegment("%7E1")).toBe("/");
    expect(decodePointerSegment("100%")).toBeUndefined();
    expect(decodePointerSegment("%E2%82")).toBeUndefined();
  });
});
