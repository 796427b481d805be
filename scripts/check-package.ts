/**
 * `npm run package:check`: lints the package as it would be published, with publint (--strict)
 * and Are the Types Wrong (node16 profile). Both read the same tarball, packed once here: each
 * packing it itself (`publint`'s own `npm pack`, `attw --pack .`) ran npm twice and unpacked the
 * files twice (about 4 of the step's 15 CPU seconds). The tarball is the one `npm pack` makes,
 * so both still see exactly the files `files` and `exports` publish; it is removed afterwards.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = (name: string) => path.join(root, "node_modules/.bin", name);

/** Runs a command with the output shown; its exit status, or 1 when it could not run. */
function run(command: string, args: readonly string[]): number {
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit" });
  if (result.error !== undefined) console.error(`package:check: ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

const destination = mkdtempSync(path.join(tmpdir(), "atc-package-check-"));
try {
  const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", destination], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (pack.status !== 0) {
    console.error(`package:check: npm pack failed (${pack.error?.message ?? `exit ${pack.status}`})`);
    process.exitCode = 1;
  } else {
    const [packed] = JSON.parse(pack.stdout) as { filename: string }[];
    if (packed === undefined) throw new Error("package:check: npm pack --json named no tarball");
    const tarball = path.join(destination, path.basename(packed.filename));
    const publint = run(bin("publint"), ["run", tarball, "--strict"]);
    const attw = run(bin("attw"), [tarball, "--profile", "node16"]);
    if (publint !== 0 || attw !== 0) process.exitCode = 1;
  }
} finally {
  rmSync(destination, { recursive: true, force: true });
}
