import { defineConfig } from "tsup";
import { subpaths } from "./scripts/subpaths.js";

// `npm run build` builds everything. `npm test` (scripts/test-steps.ts) builds in two phases so the
// unit tests start on the JavaScript while the declarations build beside them: `ATC_BUILD_PHASE=js`
// (clean, then JavaScript only), then `ATC_BUILD_PHASE=types` (declarations only; removes only old
// declarations, never the JavaScript the running tests load).
const phase = process.env.ATC_BUILD_PHASE;

export default defineConfig({
  entry: {
    ...Object.fromEntries(subpaths().map(({ entry, source }) => [entry, source])),
    // The worker thread that compiles and checks untrusted JSON Schemas: started by file name
    // from the root's code (src/tool/schema-check-worker.ts), beside it in dist/.
    "schema-check-thread": "src/tool/schema-check-thread.ts",
  },
  format: ["esm", "cjs"],
  dts: phase === "js" ? false : phase === "types" ? { only: true } : true,
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
