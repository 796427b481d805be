// One child of the unreadable-directory test, run as an unprivileged user (root reads any
// directory). Arguments (JSON in argv[2]): { workspace, sandbox }. Prints one JSON line: each
// call's [name, ok, output or "code: message"]. Loads the public entries from the copy the parent
// chose (test/support/child-entry.ts: the build when it is current, a plain node; else src under tsx).
import { loadEntry } from "../../support/load-entry.mjs";

const { createRegistry } = await loadEntry("index");
const { createFileTools } = await loadEntry("tools/index");
/** @type {{ workspace: string, sandbox: "workspace" | "unrestricted" }} */
const { workspace, sandbox } = JSON.parse(process.argv[2]);
const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { sandbox, workspace } });
/** @type {[string, string, Record<string, unknown>][]} */
const calls = [
  ["ls locked", "ls", { path: "locked" }],
  ["ls tree", "ls", { path: ".", depth: 3 }],
  ["glob", "glob", { pattern: "**/*.txt" }],
  ["glob nothing", "glob", { pattern: "**/*.md" }],
  ["grep ripgrep", "grep", { pattern: "needle", path: "." }],
  // look-behind: ripgrep refuses it without -P, so the JavaScript engine searches
  ["grep javascript", "grep", { pattern: "(?<=n)eedle", path: "." }],
  ["grep locked", "grep", { pattern: "needle", path: "locked" }],
];
/** @type {[string, boolean, string][]} */
const answers = [];
for (const [label, name, args] of calls) {
  const result = await run.call(name, args);
  answers.push([label, result.ok, result.ok ? String(result.output) : `${result.error.code}: ${result.error.message}`]);
}
process.stdout.write(`${JSON.stringify(answers)}\n`);
