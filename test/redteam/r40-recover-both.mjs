// Red team round 40: the ESM and the CommonJS build of the package loaded in one process, each
// making its first file call (which recovers the workspace) at once, once the file argv[3] exists
// (so that two such processes start their recoveries together). argv[2]: the workspace. Prints
// "loaded" once both builds are loaded and their runs made (the test creates the file only when both
// processes said it). Each build's run reads every d<i>/f.txt (argv[4]: how many); prints one JSON
// line: per build, the contents read.
import { existsSync } from "node:fs";
import { loadBuild } from "../support/load-build.mjs";

const [workspace, go, count] = process.argv.slice(2);
const builds = [await loadBuild("esm"), await loadBuild("cjs")];
const runs = builds.map(({ core, tools }) =>
  core
    .createRegistry({ tools: tools.createFileTools() })
    .createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } }),
);
process.stdout.write("loaded\n");
while (!existsSync(go)) await new Promise((resolve) => setTimeout(resolve, 2));
const read = await Promise.all(
  runs.map((run) =>
    Promise.all(
      Array.from({ length: Number(count) }, async (_, i) => {
        const result = await run.call("read", { path: `d${i}/f.txt` });
        return result.ok ? String(result.output) : `error ${result.error.code}`;
      }),
    ),
  ),
);
process.stdout.write(`${JSON.stringify(read)}\n`);
