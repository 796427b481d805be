// One node process that loads the ESM build (import) and the CommonJS build (require) of the
// package at once: the parent run is made by the ESM copy's registry with its bash, a child run of
// it by the CommonJS copy's registry with its bash (as a host whose subagent runner is a CommonJS
// module does). The parent's bash holds the parent's whole process total while the child's bash
// asks for its share, with no wait. Prints what the child's bash got as JSON.
import { createRequire } from "node:module";
import path from "node:path";

const [repo, workspace] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const esm = await import(path.join(repo, "dist/index.js"));
const esmTools = await import(path.join(repo, "dist/tools/index.js"));
const cjs = require(path.join(repo, "dist/index.cjs"));
const cjsTools = require(path.join(repo, "dist/tools/index.cjs"));

// One command's share is the parent's whole total; the child's own total would let it run.
const budget = { limits: { maxProcesses: 100 }, runLimits: { maxProcesses: 100, waitSeconds: 0 } };
const permissions = { sandbox: "unrestricted", workspace };
const childRegistry = cjs.createRegistry({ tools: [cjsTools.createBashTool(budget)] });
const spawn = esm.defineTool({
  name: "spawn",
  description: "Runs a command in a child run made by the other copy of the package.",
  inputSchema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
  handler: async (input, context) => {
    const child = childRegistry.createRun({ parent: context.scope, profile: "full", permissions });
    try {
      const result = await child.call("bash", { command: input.command });
      return result.ok ? "ran" : result.error.code;
    } finally {
      await child.close();
    }
  },
});
const parentRegistry = esm.createRegistry({ tools: [esmTools.createBashTool(budget), spawn] });
const parent = parentRegistry.createRun({ profile: "full", permissions });
parent.activate(["spawn"]);

const spawned = async () => {
  const result = await parent.call("spawn", { command: "true" });
  return result.ok ? result.output : `spawn failed: ${result.error.code}`;
};
// The parent's own command holds its total while the child asks.
const holding = parent.call("bash", { command: "sleep 1.5" });
await new Promise((resolve) => setTimeout(resolve, 400));
const whileHeld = await spawned();
const own = await holding;
// Control: once the parent's command has ended, the child's runs.
const afterwards = await spawned();
await parent.close();
await parentRegistry.close();
await childRegistry.close();
console.log(JSON.stringify({ whileHeld, parent: own.ok ? "ran" : own.error.code, afterwards }));
