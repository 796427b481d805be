// Input schemas that pass every connect-time check yet make the validator slow, shared by the raw
// test servers that list them.

/** `depth` levels that each refer `width` times to themselves: seconds to compile at 30 x 6. */
export function nestedRefs(depth, width) {
  const root = { type: "object" };
  let current = root;
  let pointer = "#";
  for (let level = 0; level < depth; level++) {
    const next = { type: "object" };
    const properties = { n: next };
    for (let index = 0; index < width; index++) properties[`r${index}`] = { $ref: pointer };
    current.properties = properties;
    pointer += "/properties/n";
    current = next;
  }
  return root;
}

/**
 * An anyOf whose first branch checks the nested value and then fails, so every level checks it
 * twice: 2^depth work for an argument nested depth deep.
 */
export const doubleCheck = {
  type: "object",
  properties: { tree: { $ref: "#/$defs/node" } },
  $defs: {
    node: {
      anyOf: [
        { allOf: [{ properties: { child: { $ref: "#/$defs/node" } } }, { required: ["never"] }] },
        { properties: { child: { $ref: "#/$defs/node" } } },
      ],
    },
  },
};

/**
 * An anyOf of two branches that both check the nested value and then fail, so every level keeps
 * both branches' errors: 2^depth error objects for an argument nested depth deep that lacks
 * `never` (past the check thread's heap at depth 40), linear time for one that has it everywhere.
 */
const failsAfterChild = { allOf: [{ properties: { child: { $ref: "#/$defs/node" } } }, { required: ["never"] }] };
export const errorFlood = {
  type: "object",
  properties: { tree: { $ref: "#/$defs/node" } },
  $defs: { node: { anyOf: [failsAfterChild, failsAfterChild] } },
};
