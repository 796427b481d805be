import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    "testing/index": "src/testing/index.ts",
    "ai-sdk/index": "src/adapters/ai-sdk/index.ts",
    "anthropic/index": "src/adapters/anthropic/index.ts",
    "openai/index": "src/adapters/openai/index.ts",
    "tools/index": "src/tools/index.ts",
    "mcp/index": "src/mcp/index.ts",
    "host/index": "src/tools/host/index.ts",
    "git/index": "src/tools/git/index.ts",
  },
  format: ["esm", "cjs"],
  dts: true,
  sourcemap: true,
  clean: true,
  target: "node20",
  splitting: true,
  treeshake: true,
  // Subpaths import the root by its package name: one copy of the classes at run time, and
  // their public types point at the root entry.
  external: ["agent-tool-catalog", "ai", /^@modelcontextprotocol\/sdk/, "isomorphic-git"],
});
