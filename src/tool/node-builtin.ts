/**
 * Node's built-in module `id`, through `process.getBuiltinModule` (Node.js 20.16 and later):
 * reached at the call, not imported, so the entries that load the module calling this still import
 * no `node:` module (bench/results/root-import.json); `undefined` where the runtime has no such
 * function, for the caller to fall back or say what it needs.
 * @internal
 */
export function nodeBuiltin<Module>(id: string): Module | undefined {
  const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  return typeof getBuiltin === "function" ? (getBuiltin(id) as Module) : undefined;
}
