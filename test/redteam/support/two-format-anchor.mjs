// One node process that loads the ESM build (import) and the CommonJS build (require) of
// `agent-tool-catalog/host` at once: the skills directory path comes from one copy's
// `workspaceSkillsDirectory`, the store from the other's. Prints what each store did as JSON.
import { createRequire } from "node:module";
import path from "node:path";

const [repo, workspace, app] = process.argv.slice(2);
const esm = await import(path.join(repo, "dist/host/index.js"));
const cjs = createRequire(import.meta.url)(path.join(repo, "dist/host/index.cjs"));

async function attempt(makeDirectory, Store) {
  const store = new Store(makeDirectory(workspace, app));
  try {
    await store.create({ name: "planted", description: "d", body: "model text\n" });
    return "written";
  } catch (error) {
    return error?.code ?? String(error);
  }
}

const order = process.env.ANCHOR_ORDER ?? "esm-then-cjs";
const [first, second] = order === "esm-then-cjs" ? [esm, cjs] : [cjs, esm];
console.log(
  JSON.stringify({
    crossed: await attempt(first.workspaceSkillsDirectory, second.DirectorySkillStore),
    same: await attempt(second.workspaceSkillsDirectory, second.DirectorySkillStore),
  }),
);
