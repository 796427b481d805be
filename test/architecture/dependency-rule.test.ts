import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { subpaths } from "../../scripts/subpaths.js";

// The core's layer order (docs/architecture.md, "Layers"): a folder may import only itself and
// the folders before it. Type-only imports count: a cycle of types is still a cycle a reader
// has to hold in mind, and it is how runtime cycles start.
const LAYERS = ["errors", "tool", "events", "search", "policy", "profiles", "meta", "run", "registry"] as const;

const src = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Every non-test `.ts` file under `folder`, as paths relative to `src`. */
function sourceFiles(folder: string): string[] {
  return (readdirSync(join(src, folder), { recursive: true }) as string[])
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".test.ts") && !file.endsWith(".test-d.ts"))
    .map((file) => join(folder, file));
}

/** The relative module specifiers of a file: static, type-only, re-exports and dynamic imports. */
function relativeImports(file: string): string[] {
  const info = ts.preProcessFile(readFileSync(join(src, file), "utf8"), true, true);
  return info.importedFiles.map((entry) => entry.fileName).filter((specifier) => specifier.startsWith("."));
}

/** The top folder under `src` an import of `file` lands in (`index.ts` for the root entry). */
function targetFolder(file: string, specifier: string): string {
  const target = relative(src, resolve(join(src, dirname(file)), specifier));
  return target.split(sep)[0] as string;
}

/** Every import that breaks the order, as `from -> to (file: specifier)`. */
function violations(order: readonly string[]): string[] {
  const out: string[] = [];
  for (const [rank, layer] of order.entries()) {
    for (const file of sourceFiles(layer)) {
      for (const specifier of relativeImports(file)) {
        const target = targetFolder(file, specifier);
        if (target === layer) continue;
        const targetRank = order.indexOf(target);
        if (targetRank === -1 || targetRank > rank) out.push(`${layer} -> ${target} (${file}: ${specifier})`);
      }
    }
  }
  return out;
}

describe("the core's dependency rule", () => {
  it("finds type-only, re-export and dynamic imports (the probe can see what it checks)", () => {
    // Positive control: run/ does import tool/, and reversing the order must report it.
    const reversed = [...LAYERS].reverse();
    expect(violations(reversed).some((line) => line.startsWith("run -> tool "))).toBe(true);
    const probe = ts.preProcessFile(
      'import type { A } from "./a.js";\nexport { B } from "./b.js";\nconst c = await import("./c.js");',
      true,
      true,
    );
    expect(probe.importedFiles.map((entry) => entry.fileName)).toEqual(["./a.js", "./b.js", "./c.js"]);
  });

  it("keeps every core folder to the folders before it, and off the Node-only subpaths", () => {
    expect(violations(LAYERS)).toEqual([]);
  });

  it("places every folder that builds no subpath in the order", () => {
    // A new folder must be placed in the order, or its imports would go unchecked.
    // Folders that build a subpath other than the root are outside the core.
    const nonCore = new Set(subpaths().map((subpath) => subpath.source.split("/")[1] as string));
    const folders = (readdirSync(src, { withFileTypes: true }) as { name: string; isDirectory(): boolean }[])
      .filter((entry) => entry.isDirectory() && !nonCore.has(entry.name))
      .map((entry) => entry.name);
    expect(new Set(folders)).toEqual(new Set(LAYERS));
  });
});

describe("the subpath entries", () => {
  it("list what they export by name (no `export *`, which would publish whatever a module adds)", () => {
    const root = resolve(src, "..");
    const wildcard = subpaths().filter((subpath) =>
      ts
        .createSourceFile(subpath.source, readFileSync(join(root, subpath.source), "utf8"), ts.ScriptTarget.Latest)
        .statements.some((statement) => ts.isExportDeclaration(statement) && statement.exportClause === undefined),
    );
    expect(wildcard.map((subpath) => subpath.source)).toEqual([]);
  });
});
