// Loads the ESM and the CommonJS build in one process and makes child runs whose parent comes
// from the other copy. Prints one JSON line: for each case, whether the child could call the tool
// its parent's allowedTools leaves out. argv: the dist directory.
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const dist = process.argv[2];
const esm = await import(pathToFileURL(path.join(dist, "index.js")).href);
const cjs = createRequire(import.meta.url)(path.join(dist, "index.cjs"));

function registry(copy) {
  const tools = ["allowed", "denied"].map((name) =>
    copy.defineTool({
      name,
      description: `The ${name} tool.`,
      tier: "core",
      inputSchema: { type: "object" },
      handler: () => name,
    }),
  );
  return copy.createRegistry({ tools });
}

const out = {};
for (const [label, parentCopy, childCopy] of [
  ["cjs parent, esm child", cjs, esm],
  ["esm parent, cjs child", esm, cjs],
  ["esm parent, esm child", esm, esm],
]) {
  const parent = registry(parentCopy).createRun({ allowedTools: ["allowed"], permissions: { approval: "destructive" } });
  const children = registry(childCopy);
  const fromRun = children.createRun({ parent });
  const fromScope = children.createRun({ parent: parent.scope() });
  out[label] = {
    parentDenied: (await parent.call("denied", {})).ok,
    childOfRunDenied: (await fromRun.call("denied", {})).error?.code ?? "ran",
    childOfScopeDenied: (await fromScope.call("denied", {})).error?.code ?? "ran",
    childOfRunApproval: fromRun.scope().permissions.approval,
  };
}
console.log(JSON.stringify(out));
