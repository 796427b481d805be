import { nodeBuiltin } from "../tool/node-builtin.js";

/** The brand checks of `node:util`'s `types` the output walkers use: read from internal slots, so no code of the value runs. */
export interface NodeUtilTypes {
  isProxy(value: unknown): boolean;
  isBoxedPrimitive(value: unknown): boolean;
  isNativeError(value: unknown): boolean;
  isNumberObject(value: unknown): boolean;
  isStringObject(value: unknown): boolean;
  isBooleanObject(value: unknown): boolean;
  isBigIntObject(value: unknown): boolean;
}

/**
 * `util.types`, reached through `process.getBuiltinModule` so that the root entry imports no
 * `node:` module (as `random-run-id.ts`); `undefined` where the runtime has no such module.
 */
export const nodeUtilTypes: NodeUtilTypes | undefined = nodeBuiltin<{ types?: NodeUtilTypes }>("node:util")?.types;
