import { defineConfig } from "tsup";
import { subpaths } from "./scripts/subpaths.js";

// `npm run build` builds everything. `npm test` (scripts/test-steps.ts) builds in two phases so the
// unit tests start on the JavaScript while the declarations build beside them: `ATC_BUILD_PHASE=js`
// (clean, then JavaScript only), then `ATC_BUILD_PHASE=types` (declarations only; removes only old
// declarations, never the JavaScript the running tests load).
const phase = process.env.ATC_BUILD_PHASE;
// `npm test`'s typecheck emits every source file's declarations (`npm run typecheck:emit`, into
// this folder) in the same compiler pass that checks them. With ATC_DECLARATIONS set, the
// declaration bundles are rolled up from those .d.ts files instead of from src/: no second
// TypeScript program that type-checks src/ all over again (tsup's dts pass checks every file it
// emits). The bundles are the same bytes once scripts/name-declaration-chunks.ts has named the
// shared chunks as the src/ build does (`x-HASH.d.ts`, not `x.d-HASH.d.ts`).
const declarations = process.env.ATC_DECLARATIONS;
const dtsEntry = (source: string) =>
  declarations === undefined ? source : `${declarations}/${source.replace(/\.ts$/, ".d.ts")}`;
const entry = {
  ...Object.fromEntries(subpaths().map(({ entry, source }) => [entry, source])),
  // The worker thread that compiles and checks untrusted JSON Schemas: started by file name
  // from the root's code (src/tool/schema-check-worker.ts), beside it in dist/.
  "schema-check-thread": "src/tool/schema-check-thread.ts",
};

export default defineConfig({
  entry,
  format: ["esm", "cjs"],
  dts:
    phase === "js"
      ? false
      : phase === "types"
        ? { only: true, entry: Object.fromEntries(Object.entries(entry).map(([name, source]) => [name, dtsEntry(source)])) }
        : true,
  sourcemap: true,
  clean: phase !== "types",
  target: "node20",
  splitting: true,
  // src/tool/load-on-demand.ts keeps only its own format's branch.
  esbuildOptions(options, context) {
    options.define = { ...options.define, __CATALOG_BUILD_FORMAT__: JSON.stringify(context.format) };
  },
  treeshake: true,
  // Subpaths import the root by its package name: one copy of the classes at run time, and
  // their public types point at the root entry.
  external: [
    /^agent-tool-catalog(\/|$)/,
    "ai",
    /^@modelcontextprotocol\/sdk/,
    "isomorphic-git",
    "ioredis",
    "bullmq",
    "@opentelemetry/api",
  ],
});
