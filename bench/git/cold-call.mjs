// One git tool call in a fresh node process, as a host that starts, answers and exits would pay
// it: module loading, repository opening and the call. Prints the answer's size and the peak RSS.
// Usage: node bench/git/cold-call.mjs <repository> <tool> <json arguments>

import { createGitTools, GIT_TOOL_NAMES } from "../../dist/git/index.js";
import { createRegistry } from "../../dist/index.js";

const [directory, tool, args] = process.argv.slice(2);
const run = createRegistry({ tools: createGitTools() }).createRun({ permissions: { workspace: directory } });
run.activate([...GIT_TOOL_NAMES]);
const result = await run.call(tool, JSON.parse(args));
if (!result.ok) {
  process.stderr.write(JSON.stringify(result.error));
  process.exit(1);
}
process.stdout.write(JSON.stringify({ bytes: JSON.stringify(result.output).length, maxRssKb: process.resourceUsage().maxRSS }));
