// Runs file tool calls as root or, given `user`, as that user (the owner and read-only tests: a
// user that is not root). argv[2]: JSON { workspace, calls: [[tool, args], ...], user? };
// a call named "$chmod" ({ path, mode }) changes a file's mode between calls, as this user.
// Prints one JSON line: the results. Loads the public entries from the copy the parent chose
// (test/support/child-entry.ts: the build when it is current, a plain node; else src under tsx).
import { chmod } from "node:fs/promises";
import path from "node:path";
import { loadEntry } from "../../support/load-entry.mjs";

const { createRegistry } = await loadEntry("index");
const { createFileTools } = await loadEntry("tools/index");
const options = JSON.parse(process.argv[2]);
const run = createRegistry({ tools: createFileTools({}) }).createRun({
  profile: "full",
  permissions: { sandbox: "workspace", workspace: options.workspace },
});
// `user` ({ uid, gid, groups }): the calls run as that user. The privileges are dropped here, after
// the modules are loaded as root: a checkout in a directory only root may enter (a `mktemp -d`
// clone) cannot be loaded by that user, as it could not through `setpriv`. The file tools load
// nothing later.
// With `effectiveOnly`, only the effective ids change (the real user stays root): what a check by
// the real user (`access(2)`) gets wrong.
if (options.user !== undefined) {
  process.setgroups(options.user.groups);
  if (options.user.effectiveOnly === true) {
    process.setegid(options.user.gid);
    process.seteuid(options.user.uid);
  } else {
    process.setgid(options.user.gid);
    process.setuid(options.user.uid);
  }
}
const results = [];
for (const [tool, args] of options.calls) {
  if (tool === "$chmod") await chmod(path.join(options.workspace, args.path), args.mode);
  results.push(tool === "$chmod" ? { ok: true } : await run.call(tool, args));
}
process.stdout.write(`${JSON.stringify(results)}\n`);
