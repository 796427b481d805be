// Run inside a private mount namespace with a fresh tmpfs on argv[2] (mode 0755, root-owned, its
// parents root-owned and not writable by others: a workspace such as /srv/proj). A command in
// scope `workspace` plants `sh`, `rg` and `bash` in the workspace's `bin`, which is on PATH (as
// `/srv/proj/.venv/bin` or `node_modules/.bin` would be); bubblewrap started by root makes them
// root's on the host. Then the host looks its helper binaries up. Prints one JSON line.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const load = (file) => import(pathToFileURL(path.join(repo, file)).href);
const { createProcessSandbox } = await load("src/tools/sandbox/create-process-sandbox.ts");
const { findTrustedExecutable } = await load("src/tools/sandbox/trusted-executable.ts");
const { searchWithRipgrep } = await load("src/tools/fs/grep-ripgrep.ts");

const workspace = path.join(process.argv[2], "ws");
const marker = path.join(process.argv[3], "planted-ran");
const bin = path.join(workspace, "bin");
mkdirSync(workspace, { recursive: true });
writeFileSync(path.join(workspace, "f.txt"), "needle\n");
process.env.PATH = `${bin}:${process.env.PATH}`;

// The real rg, found before anything is planted (the grep tool finds it the same way).
const realRipgrep = findTrustedExecutable("rg");
const boxed = await createProcessSandbox({ scope: "workspace", workspace });
const script = `#!/bin/sh\necho "$0 $*" >> ${marker}\nexit 0\n`;
const plant = boxed.spawn({
  command: "/bin/sh",
  cwd: workspace,
  args: [
    "-c",
    `mkdir -p bin && for n in sh rg bash; do printf '%s' "$1" > bin/$n; chmod 755 bin/$n; done; chmod 755 bin`,
    "plant",
    script,
  ],
});
const planted = await plant.exited;

// Control: the planted files pass the ownership check by themselves (root's on the host, mode
// 755): a lookup that does not know the workspace would choose them.
const lookups = Object.fromEntries(
  ["sh", "rg", "bash"].map((name) => {
    const found = findTrustedExecutable(name);
    return [name, found.ok ? found.path : null];
  }),
);
const query = {
  pattern: "needle",
  ignoreCase: false,
  fixedStrings: false,
  glob: undefined,
  context: 0,
  limit: 100,
  filesOnly: false,
};
// A later grep in another run of the same process, scope unrestricted: its ripgrep is started
// through an `sh` that sets its data limit.
const host = await createProcessSandbox({ scope: "unrestricted" });
const answer = await searchWithRipgrep(
  host,
  realRipgrep.ok ? realRipgrep.path : "rg",
  workspace,
  undefined,
  query,
  AbortSignal.timeout(30_000),
).then(
  (found) => found.lines.map((line) => line.text),
  (error) => `rejected: ${error}`,
);
const ran = existsSync(marker) ? readFileSync(marker, "utf8") : "";
rmSync(marker, { force: true });
// Control: the planted sh runs where it is asked for by name (so "not run" is not a broken plant).
const { execFileSync } = await import("node:child_process");
execFileSync(path.join(bin, "sh"), ["control"]);
const controlRan = existsSync(marker);
console.log(
  JSON.stringify({
    planted,
    hostUid: (await import("node:fs")).statSync(path.join(bin, "sh")).uid,
    lookups,
    answer,
    ran,
    controlRan,
    bin,
  }),
);
