import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const source = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      { find: /^agent-tool-catalog\/testing$/, replacement: source("./src/testing/index.ts") },
      { find: /^agent-tool-catalog\/ai-sdk$/, replacement: source("./src/adapters/ai-sdk/index.ts") },
      { find: /^agent-tool-catalog\/anthropic$/, replacement: source("./src/adapters/anthropic/index.ts") },
      { find: /^agent-tool-catalog\/openai$/, replacement: source("./src/adapters/openai/index.ts") },
      { find: /^agent-tool-catalog\/tools$/, replacement: source("./src/tools/index.ts") },
      { find: /^agent-tool-catalog\/mcp$/, replacement: source("./src/mcp/index.ts") },
      { find: /^agent-tool-catalog\/host$/, replacement: source("./src/tools/host/index.ts") },
      { find: /^agent-tool-catalog\/git$/, replacement: source("./src/tools/git/index.ts") },
      { find: /^agent-tool-catalog$/, replacement: source("./src/index.ts") },
    ],
  },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "bench/**/*.test.ts", "examples/**/*.test.ts"],
    testTimeout: 20_000,
    pool: "forks",
  },
});
