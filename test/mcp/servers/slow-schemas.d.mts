// Types for slow-schemas.mjs, so that TypeScript tests share its schemas instead of copying them.
import type { JsonSchema } from "../../../src/tool/json-schema.js";

/** `depth` levels that each refer `width` times to themselves: seconds to compile at 30 x 6. */
export function nestedRefs(depth: number, width: number): JsonSchema;

/**
 * An anyOf whose first branch checks the nested value and then fails, so every level checks it
 * twice: 2^depth work for an argument nested depth deep.
 */
export const doubleCheck: JsonSchema;

/**
 * An anyOf of two branches that both check the nested value and then fail, so every level keeps
 * both branches' errors: 2^depth error objects for an argument nested depth deep that lacks
 * `never` (past the check thread's heap at depth 40), linear time for one that has it everywhere.
 */
export const errorFlood: JsonSchema;
