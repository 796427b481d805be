import { explainUncompilableJsonSchema } from "../tool/json-schema-references.js";
import { estimateJsonSize } from "../tool/json-size.js";

const MAX_NODES = 20_000;
/**
 * The most characters of JSON a schema may hold (estimated: `estimateJsonSize`). The schema is kept in the tool's definition and sent to the model with the tool, where a
 * tool's own description is cut at 4,000 characters: a 9 MiB `description` inside the schema was
 * registered whole. 1 Mi is more than 20,000 nodes with ordinary names take.
 */
const MAX_CHARACTERS = 1024 * 1024;
const MAX_DEPTH = 64;
/**
 * The most values one `enum` (or any one array) may list. Checking a schema against its
 * meta-schema costs the validator the square of an array's length (uniqueness): measured, 16,000
 * values blocked the host's thread for 4.2 s, and 300,000 (4.5 MB, under the transport's limit)
 * for about half an hour. 1,000 values cost about 30 ms; real enums (countries, time zones) fit.
 */
const MAX_ARRAY_ITEMS = 1_000;
/**
 * The validator's first compile of a server's schema costs time and memory (in the schema check
 * thread since the host's thread stopped doing it; these bounds still keep it small). `$ref`s to
 * definitions that hold `$ref`s themselves (recursive ones) cannot be inlined and cost it
 * milliseconds each (measured at load 6: 180 nested self-references 0.9 s, 600 1.5-3.5 s, 3,000 5 s,
 * 18,000 170 s), while `$ref`s to plain definitions are cheap. At most 200 of the first kind, and
 * at most 10,000 nodes under referenced definitions (nested ones counted again), keep it near a
 * second; real servers' schemas use a few.
 */
const MAX_REFS_INTO_REFERRING_TARGETS = 200;
const MAX_REFERENCED_NODES = 10_000;

/**
 * Finds what would make a JSON Schema fail when it is first compiled, at the first call rather
 * than at registration: a `$ref` that points nowhere, a `pattern` that is not a regular
 * expression, a schema too large or too deep to be sane. The catalog compiles validators lazily
 * (so thousands of MCP tools cost nothing until called); this keeps a broken server schema from
 * turning the first call into an exception. Returns the problem, or `undefined`.
 */
export function checkMcpInputSchema(schema: unknown): string | undefined {
  let nodes = 0;
  const visit = (value: unknown, depth: number, path: string): string | undefined => {
    if (typeof value !== "object" || value === null) return undefined;
    if (++nodes > MAX_NODES) return `the schema has more than ${MAX_NODES} nodes`;
    if (depth > MAX_DEPTH) return `the schema is nested deeper than ${MAX_DEPTH} levels`;
    if (Array.isArray(value) && value.length > MAX_ARRAY_ITEMS) {
      return `${path} lists ${value.length} values (at most ${MAX_ARRAY_ITEMS})`;
    }
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      const problem = visit(child, depth + 1, `${path}/${key}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  };
  return (
    visit(schema, 0, "#") ??
    explainUncompilableJsonSchema(schema, {
      maxReferencedNodes: MAX_REFERENCED_NODES,
      maxRefsIntoReferringTargets: MAX_REFS_INTO_REFERRING_TARGETS,
    }) ??
    // Last, so a schema both too large and of a shape refused above is named by its shape.
    (estimateJsonSize(schema, MAX_CHARACTERS) > MAX_CHARACTERS
      ? `the schema holds more than ${MAX_CHARACTERS} characters`
      : undefined)
  );
}
