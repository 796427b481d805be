/**
 * Checks (or, with --update, rewrites) the API report of every public entry point with
 * api-extractor. One report per subpath export, in etc/<name>.api.md.
 *
 * The entries share one compiler program (api-extractor's `CompilerState`): tsconfig.api.json
 * already puts every dist/ declaration file in it, so each entry's own program was the same one,
 * parsed and bound 13 times (about 60% of the step's CPU).
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";
import { subpaths } from "./subpaths.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const update = process.argv.includes("--update");
const entries = subpaths().map(({ entry }) => entry);

const base = ExtractorConfig.loadFile(`${root}api-extractor.json`);
const rootExports = exportedNames(readFileSync(`${root}dist/index.d.ts`, "utf8"));
// Every subpath's public names: a subpath may use another subpath's public types (it imports them
// by package name, e.g. the catalog names the host's AgentRunner), since users can name them too.
const publicExports = new Set(entries.flatMap((entry) => [...exportedNames(readFileSync(`${root}dist/${entry}.d.ts`, "utf8"))]));
let failed = false;
let compilerState: CompilerState | undefined;
for (const entry of entries) {
  const reportName =
    entry === "index" ? "agent-tool-catalog" : `agent-tool-catalog-${entry.replace("/index", "").replaceAll("/", "-")}`;
  const config = ExtractorConfig.prepare({
    configObject: {
      ...base,
      mainEntryPointFilePath: `${root}dist/${entry}.d.ts`,
      apiReport: { ...base.apiReport, enabled: true, reportFileName: reportName },
    },
    configObjectFullPath: `${root}api-extractor.json`,
    packageJsonFullPath: `${root}package.json`,
  });
  compilerState ??= CompilerState.create(config, { additionalEntryPoints: entries.map((other) => `${root}dist/${other}.d.ts`) });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false, compilerState });
  if (!result.succeeded) {
    failed = true;
    console.error(
      `API report of ${entry}: ${result.apiReportChanged ? "changed (run npm run api:update and commit etc/)" : `${result.errorCount} error(s), ${result.warningCount} warning(s)`}`,
    );
  } else if (result.warningCount > 0) {
    failed = true;
    console.error(`API report of ${entry}: ${result.warningCount} warning(s); fix them.`);
  }
  // api-extractor writes "forgotten export" findings into the report rather than failing. A
  // subpath may use the root's public types (it imports them by package name); anything else is
  // a type users cannot name, so it fails the check.
  const report = readFileSync(`${root}etc/${reportName}.api.md`, "utf8");
  for (const match of report.matchAll(/ae-forgotten-export\) The symbol "([^"]+)"/g)) {
    const symbol = match[1] as string;
    if (entry === "index" || !(rootExports.has(symbol) || publicExports.has(symbol))) {
      failed = true;
      console.error(`API report of ${entry}: ${symbol} is used by the public API but not exported.`);
    }
  }
}
if (failed) process.exit(1);
console.log(`API reports ${update ? "updated" : "match"} for ${entries.join(", ")}.`);

/** Names exported by a bundled declaration file (`export { a, b as c, type d }`). */
function exportedNames(declarations: string): Set<string> {
  const names = new Set<string>();
  for (const block of declarations.matchAll(/export \{([^}]*)\}/g)) {
    for (const part of (block[1] as string).split(",")) {
      const name = part
        .trim()
        .replace(/^type /, "")
        .split(/ as /)
        .pop()
        ?.trim();
      if (name !== undefined && name !== "") names.add(name);
    }
  }
  return names;
}
