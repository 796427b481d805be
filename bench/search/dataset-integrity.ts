import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { TOOL_NAME_PATTERN } from "../../src/index.js";

type Row = Record<string, unknown>;

function readJsonLines(path: string): Row[] {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Row);
}

/** The name `mcpDataset` registers a tool under (as `connectMcpServers` would). */
export function registeredMcpName(server: string, name: string): string {
  return `mcp_${server.replace(/[^a-zA-Z0-9_]/g, "_")}_${name}`.slice(0, 64);
}

/** `package@version` of a `source` field (`<package>@<version>:<file>`), or undefined. */
function packageOf(source: unknown): string | undefined {
  const text = typeof source === "string" ? source : "";
  const packageAtVersion = text.slice(0, text.indexOf(":"));
  return /^(@[^/]+\/)?[^@/]+@\d[^:]*$/.test(packageAtVersion) ? packageAtVersion : undefined;
}

function toolProblems(tools: readonly Row[]): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const tool of tools) {
    const id = String(tool.id);
    if (ids.has(id)) problems.push(`duplicate tool id ${id}`);
    ids.add(id);
    if (id !== `${tool.server}.${tool.name}`) problems.push(`tool id ${id} is not <server>.<name>`);
    const name = registeredMcpName(String(tool.server), String(tool.name));
    if (!TOOL_NAME_PATTERN.test(name)) problems.push(`tool ${id} registers as an invalid name ${name}`);
    else if (names.has(name)) problems.push(`tool ${id} registers under a name already taken: ${name}`);
    names.add(name);
    if (typeof tool.description !== "string" || !Array.isArray(tool.parameters))
      problems.push(`tool ${id} lacks description or parameters`);
    if (packageOf(tool.source) === undefined) problems.push(`tool ${id} has no package@version source`);
  }
  return problems;
}

function queryProblems(queries: readonly Row[], toolIds: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const ids = new Set<string>();
  const texts = new Set<string>();
  for (const query of queries) {
    const id = String(query.id);
    if (ids.has(id)) problems.push(`duplicate query id ${id}`);
    ids.add(id);
    const text = String(query.query).trim().toLowerCase();
    if (texts.has(text)) problems.push(`query ${id} repeats the text of another query`);
    texts.add(text);
    const gold = Array.isArray(query.gold_tool_ids) ? query.gold_tool_ids.map(String) : [];
    if (gold.length === 0) problems.push(`query ${id} has no gold tool`);
    if (new Set(gold).size !== gold.length) problems.push(`query ${id} lists a gold tool twice`);
    for (const goldId of gold) if (!toolIds.has(goldId)) problems.push(`query ${id}: gold ${goldId} is not a tool of the set`);
  }
  return problems;
}

function licenceProblems(directory: string, tools: readonly Row[]): string[] {
  const notesPath = join(directory, "LICENSE-NOTES.md");
  if (!existsSync(notesPath)) return ["LICENSE-NOTES.md is missing"];
  const notes = readFileSync(notesPath, "utf8");
  const rows = notes.split("\n").filter((line) => line.startsWith("| "));
  const problems: string[] = [];
  for (const server of new Set(tools.map((tool) => String(tool.server))))
    if (!rows.some((row) => row.startsWith(`| ${server} |`))) problems.push(`no licence row for server ${server}`);
  for (const packageAtVersion of new Set(tools.map((tool) => packageOf(tool.source))))
    if (packageAtVersion !== undefined && !notes.includes(`\`${packageAtVersion}\``))
      problems.push(`no licence entry names ${packageAtVersion}`);
  if (rows.some((row) => row.includes("Apache-2.0")) && !existsSync(join(directory, "LICENSE.upstream-Apache-2.0")))
    problems.push("an Apache-2.0 package but no LICENSE.upstream-Apache-2.0");
  return problems;
}

/**
 * What is wrong with an MCP retrieval set folder (tools.jsonl, queries.jsonl, LICENSE-NOTES.md), one
 * line per problem; empty when the set is whole. A gold id that names no tool would silently count
 * as a miss for every ranker, and a tool whose package has no licence entry could not be vendored.
 */
export function mcpSetProblems(directory: string): string[] {
  const tools = readJsonLines(join(directory, "tools.jsonl"));
  const toolIds = new Set(tools.map((tool) => String(tool.id)));
  return [
    ...toolProblems(tools),
    ...queryProblems(readJsonLines(join(directory, "queries.jsonl")), toolIds),
    ...licenceProblems(directory, tools),
  ];
}
