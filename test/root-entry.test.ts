import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = join(root, "dist");

/** Every bare import reachable from a built file, following relative imports across chunks. */
function bareImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    for (const match of source.matchAll(/(?:from\s*|import\s*\(\s*|require\(\s*)["']([^"']+)["']/g)) {
      // A doc comment's example (kept in the bundle on class members) is not an import: its lines
      // start with `*` or `//`, which no statement of the bundle does.
      const lineStart = source.lastIndexOf("\n", match.index) + 1;
      if (/^\s*(\*|\/\/)/.test(source.slice(lineStart, match.index))) continue;
      const specifier = match[1] as string;
      if (specifier.startsWith(".")) pending.push(resolve(dirname(file), specifier));
      else bare.add(specifier);
    }
  }
  return bare;
}

describe("the built root entry", () => {
  it.each(["index.js", "index.cjs"])("%s imports only its own dependencies, nothing Node-only or optional", (file) => {
    const entry = join(dist, file);
    expect(existsSync(entry), "run `npm run build` first").toBe(true);
    const imports = [...bareImports(entry)].map((specifier) => specifier.replace(/^(@[^/]+\/[^/]+|[^@/][^/]*).*$/, "$1"));
    expect(new Set(imports)).toEqual(
      new Set(["ajv", "smol-toml", "zod", "zod-to-json-schema"].filter((name) => imports.includes(name))),
    );
    expect(imports.some((specifier) => specifier.startsWith("node:"))).toBe(false);
  });

  it("loads no child_process, net or worker_threads at run time", () => {
    const loadedBy = (specifier: string): string[] => {
      const script = `
        const before = new Set(process.moduleLoadList);
        await import(${JSON.stringify(specifier)});
        console.log(JSON.stringify(process.moduleLoadList.filter((name) => !before.has(name))));`;
      return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })) as string[];
    };
    const nodeOnly = (names: string[]) => names.filter((name) => /NativeModule (child_process|net|worker_threads)$/.test(name));
    // The probe itself must see such a module when one is loaded.
    expect(nodeOnly(loadedBy("node:child_process"))).toContain("NativeModule child_process");
    expect(nodeOnly(loadedBy(join(dist, "index.js")))).toEqual([]);
  });

  it("creates a run without loading node's Web Crypto layer (a run id comes from node:crypto)", () => {
    const loaded = (setup: string): string[] => {
      const script = `
        const catalog = await import(${JSON.stringify(join(dist, "index.js"))});
        const before = new Set(process.moduleLoadList);
        const run = catalog.createRegistry().createRun();
        ${setup}
        console.log(JSON.stringify({ id: run.id, loaded: process.moduleLoadList.filter((name) => !before.has(name)) }));`;
      const { id, loaded } = JSON.parse(
        execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }),
      ) as { id: string; loaded: string[] };
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      return loaded.filter((name) => name.endsWith("internal/crypto/webcrypto"));
    };
    // The probe sees the module when something does load it.
    expect(loaded("globalThis.crypto.randomUUID();")).toEqual(["NativeModule internal/crypto/webcrypto"]);
    expect(loaded("")).toEqual([]);
  });

  it("works from CommonJS", () => {
    const output = execFileSync(
      process.execPath,
      [
        "-e",
        `const { createRegistry, TIER_CORE } = require(${JSON.stringify(join(dist, "index.cjs"))}); console.log(TIER_CORE, createRegistry().list().length)`,
      ],
      { encoding: "utf8" },
    );
    expect(output.trim()).toBe("core 2"); // find_tool and toolbox
  });
});
