import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The root entry loads Ajv, zod-to-json-schema and smol-toml only when a call needs them
// (src/tool/load-on-demand.ts). A child process imports the built entry and reports which of
// them sit in the module cache; every one of them is CommonJS-loaded, so the cache sees it.
const dist = join(resolve(dirname(fileURLToPath(import.meta.url)), "../.."), "dist");
const ON_DEMAND = ["ajv", "zod-to-json-schema", "smol-toml"];

function loadedAfter(format: "esm" | "cjs", use: string): string[] {
  const entry = join(dist, format === "esm" ? "index.js" : "index.cjs");
  const report = `
    const seen = Object.keys(cache).map((file) => file.split("/node_modules/").at(-1).split("/")[0]);
    console.log(JSON.stringify([...new Set(seen)].filter((name) => ${JSON.stringify(ON_DEMAND)}.includes(name)).sort()));`;
  const script =
    format === "esm"
      ? `import { createRequire } from "node:module";
         const cache = createRequire(import.meta.url).cache;
         const api = await import(${JSON.stringify(entry)});
         ${use}
         ${report}`
      : `const cache = require.cache;
         const api = require(${JSON.stringify(entry)});
         ${use}
         ${report}`;
  const args = format === "esm" ? ["--input-type=module", "-e", script] : ["-e", script];
  return JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8", cwd: dist })) as string[];
}

const USE_ALL = `
  api.createRegistry({ tools: [api.defineTool({ name: "plain", description: "A plain JSON Schema tool.", inputSchema: { type: "object" }, handler: () => "ok" })] });
  api.parseToolConfig("[tools]\\nprofile = \\"core\\"\\n");`;

describe.each(["esm", "cjs"] as const)("the built root entry (%s)", (format) => {
  it("loads no on-demand dependency when imported", () => {
    expect(existsSync(join(dist, "index.js")), "run `npm run build` first").toBe(true);
    expect(loadedAfter(format, "")).toEqual([]);
  });

  it("loads them when a call needs them (the probe sees a loaded one)", () => {
    expect(loadedAfter(format, USE_ALL)).toEqual(["ajv", "smol-toml"]);
  });
});
