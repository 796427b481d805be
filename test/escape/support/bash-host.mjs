/**
 * A host process that runs one command through the bash tool (argv: scope, workspace, command),
 * as sandbox-harness.ts's attackRun does, and prints the tool's result; for the escape attempts
 * that kill the host itself. Plain JavaScript loading public entries (test/support/load-entry.mjs):
 * with a current build it starts as plain node on dist/, not under tsx on src/ (about 1 s of CPU less).
 */
import { loadEntry } from "../../support/load-entry.mjs";

const [{ createRegistry }, { createBashTool }] = await Promise.all([loadEntry("index"), loadEntry("tools/index")]);
const [scope, workspace, command] = process.argv.slice(2);
const run = createRegistry({ tools: [createBashTool({})] }).createRun({
  profile: "full",
  permissions: { sandbox: scope, workspace },
  condenseThreshold: Number.POSITIVE_INFINITY,
});
const result = await run.call("bash", { command });
process.stdout.write(`<<<${JSON.stringify(result)}>>>\n`);
