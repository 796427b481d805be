import { createRequire } from "node:module";

// A new process that imports the host entry (every host, and the test suite's child processes)
// should not pay for parsers only some calls need: yaml (about 0.1 s of CPU to load), html-to-text
// with its HTML parser (about 0.05 s), croner and smol-toml. They are loaded by the first call that
// needs them. Those calls are synchronous (parseRecipe, parseAgentProfile, parseCronSchedule, ...),
// so loading is too: `require` through `createRequire`, which works in both builds and under tsx.

type RequireFunction = (id: string) => unknown;

let loader: RequireFunction | undefined;

// tsup defines it per output format; unset when the source runs directly (tests, tsx).
declare const __CATALOG_BUILD_FORMAT__: string | undefined;

/** Where this module lives, for `createRequire`; constant-folded so each build holds one branch. */
function moduleLocation(): string {
  // In the CommonJS build `import.meta` is empty: `__filename` there.
  if (typeof __CATALOG_BUILD_FORMAT__ !== "undefined" && __CATALOG_BUILD_FORMAT__ === "cjs") return __filename;
  return import.meta.url;
}

/**
 * A getter that loads the dependency `id` on its first call and returns the same module after.
 * @internal
 */
export function loadOnDemand<Module>(id: string): () => Module {
  let loaded: Module | undefined;
  return () => {
    loader ??= createRequire(moduleLocation());
    loaded ??= loader(id) as Module;
    return loaded;
  };
}
