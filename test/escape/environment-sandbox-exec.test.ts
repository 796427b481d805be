/**
 * Escape attempts through the environment of the macOS driver's launcher: `sandbox-exec` is a host
 * process that runs before its profile applies, so a loader variable in *its* environment
 * (`DYLD_INSERT_LIBRARIES` naming a library the model wrote, `LD_*`, libmalloc's `Malloc*`) acts
 * on the host wherever System Integrity Protection does not strip it. There is no macOS here:
 * `sandbox-exec` is stood in for by a recording launcher (the driver's `executable` option), a
 * real process that writes down its environment and arguments and then runs what follows `--`,
 * as `sandbox-exec` does. Controls: the variables still reach the command, and the launcher does
 * record the variables it is given (the command's ordinary ones, which stay off its command line).
 */
import { chmodSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { SandboxExecSandbox } from "../../src/tools/sandbox/sandbox-exec-sandbox.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground } from "./support/sandbox-harness.js";

/** Variables that act on a program as it starts, as a host would pass them for a workspace build. */
function loaderVariables(workspace: string): Record<string, string> {
  return {
    DYLD_INSERT_LIBRARIES: path.join(workspace, "planted.dylib"),
    DYLD_LIBRARY_PATH: path.join(workspace, "lib"),
    LD_LIBRARY_PATH: path.join(workspace, "lib"),
    MallocLogFile: path.join(workspace, "malloc.log"),
  };
}

describe("escape attempts: the macOS launcher's environment (sandbox-exec stood in by a recording launcher)", () => {
  let ground: Playground;
  let launcher: string;
  let record: string;
  beforeAll(async () => {
    ground = await playground();
    record = path.join(ground.outside, "launcher-record");
    launcher = path.join(ground.outside, "sandbox-exec");
    writeFileSync(
      launcher,
      [
        "#!/usr/bin/bash",
        `{ env -0; printf '\\n--ARGS--\\n'; printf '%s\\n' "$@"; } > ${JSON.stringify(record)}`,
        'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done',
        "shift",
        'exec "$@"',
        "",
      ].join("\n"),
    );
    chmodSync(launcher, 0o755);
  });
  afterAll(async () => ground.dispose());

  function recorded(): { environment: string[]; args: string[] } {
    const [environment = "", args = ""] = readFileSync(record, "utf8").split("\n--ARGS--\n");
    return { environment: environment.split("\0").filter((entry) => entry !== ""), args: args.split("\n") };
  }

  for (const scope of ["workspace", "local"] as const) {
    escapeAttempt(
      "environment",
      `${scope}: loader variables of the command reach sandbox-exec itself (a host process)`,
      async () => {
        const sandbox = new SandboxExecSandbox({ scope, workspace: ground.workspace, executable: launcher });
        const loaders = loaderVariables(ground.workspace);
        const result = await runSandboxed(sandbox, {
          command: "/usr/bin/bash",
          args: ["-c", 'printf "%s|" "$DYLD_INSERT_LIBRARIES" "$LD_LIBRARY_PATH" "$MallocLogFile" "$ATC_COMMAND_SECRET"'],
          cwd: ground.workspace,
          env: { ...loaders, ATC_COMMAND_SECRET: "s3cret" },
        });
        // The command sees every variable.
        expect(result.stdout).toBe(
          `${loaders.DYLD_INSERT_LIBRARIES}|${loaders.LD_LIBRARY_PATH}|${loaders.MallocLogFile}|s3cret|`,
        );
        const { environment, args } = recorded();
        const names = environment.map((entry) => entry.slice(0, entry.indexOf("=")));
        expect(names.filter((name) => /^(?:DYLD_|LD_|Malloc)/.test(name))).toEqual([]);
        // Control: the launcher records what it is given; the command's other variables stay off
        // its command line (ps shows that to every user).
        expect(environment).toContain("ATC_COMMAND_SECRET=s3cret");
        expect(args.join("\n")).not.toContain("s3cret");
      },
    );
  }
});
