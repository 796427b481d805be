import { ConfigurationError } from "../errors/configuration-error.js";
import { nodeBuiltin } from "./node-builtin.js";

// The root entry must import fast (within 1.2x of zod alone, bench/results/root-import.json), so
// dependencies that only some calls need (Ajv for plain JSON Schema, zod-to-json-schema for zod 3
// schemas, smol-toml for `[tools]` config) are loaded by the first call that needs them. Those
// calls are synchronous, so loading is too: `createRequire`, reached through
// `process.getBuiltinModule` so that the entry still imports no `node:` module.

type RequireFunction = (id: string) => unknown;

interface ModuleBuiltin {
  createRequire(from: string): RequireFunction;
}

let loader: RequireFunction | undefined;

// tsup defines it per output format; unset when the source runs directly (tests, tsx).
declare const __CATALOG_BUILD_FORMAT__: string | undefined;

/** Where this module lives, for `createRequire`; constant-folded so each build holds one branch. */
function moduleLocation(): string {
  // In the CommonJS build, `__filename` (reading `import.meta.url` there would pull in `url`).
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined" && __CATALOG_BUILD_FORMAT__ === "cjs") return __filename;
  return import.meta.url;
}

function requireFunction(id: string): RequireFunction {
  if (loader !== undefined) return loader;
  const moduleBuiltin = nodeBuiltin<ModuleBuiltin>("module");
  if (moduleBuiltin === undefined) {
    throw new ConfigurationError(
      "unsupported_runtime",
      `Loading "${id}" on demand needs Node.js 20.16 or later (process.getBuiltinModule).`,
      { data: { module: id } },
    );
  }
  loader = moduleBuiltin.createRequire(moduleLocation());
  return loader;
}

/**
 * A getter that loads module `id` on its first call and returns the same module after.
 * @internal
 */
export function loadOnDemand<Module>(id: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    loaded ??= requireFunction(id)(id) as Module;
    return loaded;
  };
}

/** The URL the ES module loader would import `id` from, or `undefined` where it cannot say (the CommonJS build, vitest). */
function esmLocation(id: string): string | undefined {
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined" && __CATALOG_BUILD_FORMAT__ === "cjs") return undefined;
  const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
  if (typeof resolve !== "function") return undefined;
  try {
    return resolve(id);
  } catch {
    return undefined;
  }
}

/**
 * {@link loadOnDemand} for a dual package that other modules of the process import statically
 * (zod): the ES module build loads the package's ES module file, so that it is the same instance
 * the process's `import` statements get (node's `require` of an ES module, Node.js 20.19 and later)
 * rather than a second copy from its CommonJS files; where that is not supported, or in the
 * CommonJS build, the package's CommonJS files, as `require` would.
 * @internal
 */
export function loadSharedOnDemand<Module>(id: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    if (loaded !== undefined) return loaded;
    const require = requireFunction(id);
    const location = esmLocation(id);
    const toPath = nodeBuiltin<{ fileURLToPath(url: string): string }>("url")?.fileURLToPath;
    if (location?.startsWith("file:") === true && toPath !== undefined) {
      try {
        loaded = require(toPath(location)) as Module;
        return loaded;
      } catch (error) {
        // Before Node.js 20.19 `require` refuses ES modules: take the CommonJS files then.
        if ((error as { code?: unknown }).code !== "ERR_REQUIRE_ESM") throw error;
      }
    }
    loaded = require(id) as Module;
    return loaded;
  };
}
