/**
 * Escape attempts through the environment a host gives a sandboxed command (`SandboxedCommand.env`,
 * for example a build's `LD_LIBRARY_PATH` naming a workspace directory): the launcher shell and
 * bwrap that start the sandbox are host processes, outside every namespace, so a dynamic-loader
 * variable in *their* environment loads a library the sandboxed command wrote, on the host.
 * The model compiles its library inside the sandbox (cc in the read-only `/usr`, the workspace
 * writable); its constructor leaves a marker in a host directory only when it runs outside the
 * sandbox's uid. Controls: the variables still reach the command, and a plain host bash with the
 * same environment does load the library.
 */
import { execFileSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { SANDBOX_UID } from "../../src/tools/sandbox/bubblewrap-arguments.js";
import { createProcessSandbox } from "../../src/tools/sandbox/create-process-sandbox.js";
import { runSandboxed } from "../../src/tools/sandbox/run-sandboxed.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");

/** The first shared library the host's bash needs besides libc (libtinfo on Debian): the one to impersonate. */
function bashLibrary(): { name: string; path: string } {
  const ldd = execFileSync("ldd", ["/usr/bin/bash"], { encoding: "utf8" });
  for (const match of ldd.matchAll(/^\s*(\S+) => (\/\S+)/gm)) {
    if (!(match[1] as string).startsWith("libc.so")) return { name: match[1] as string, path: match[2] as string };
  }
  throw new Error(`bash needs no library but libc here:\n${ldd}`);
}

describe.skipIf(bubblewrap.missing || cc.missing)(
  cc.label(bubblewrap.label("escape attempts: the command's environment on the host")),
  () => {
    let ground: Playground;
    let marker: string;
    beforeAll(async () => {
      ground = await playground();
      marker = path.join(ground.outside, "loader-ran-on-host");
      // The model's library: a constructor that leaves the marker when it runs as anyone but the
      // sandbox user; as a filter of the real library it stands in for, every symbol still resolves.
      const library = bashLibrary();
      const source = [
        "#include <fcntl.h>",
        "#include <unistd.h>",
        "__attribute__((constructor)) static void planted(void) {",
        `  if (getuid() == ${SANDBOX_UID}) return;`,
        `  int fd = open(${JSON.stringify(marker)}, O_WRONLY | O_CREAT | O_APPEND, 0644);`,
        '  if (fd >= 0) { write(fd, "ran\\n", 4); close(fd); }',
        "}",
      ].join("\n");
      const build = await sh(
        attackRun(ground.workspace, "workspace"),
        `mkdir -p lib && printf '%s\\n' ${quote(source)} > planted.c && ` +
          `cc -shared -fPIC -o lib/${library.name} planted.c -Wl,--filter=${library.path} -Wl,-soname,${library.name} && ` +
          `cp lib/${library.name} planted.so && echo built`,
        { timeout_seconds: 30 },
      );
      expect(build.stdout, build.text).toContain("built");
    }, 60_000);
    afterAll(async () => ground.dispose());

    const cases = [
      ["LD_LIBRARY_PATH", (workspace: string) => path.join(workspace, "lib")],
      ["LD_PRELOAD", (workspace: string) => path.join(workspace, "planted.so")],
    ] as const;
    for (const [name, value] of cases) {
      for (const scope of ["workspace", "local"] as const) {
        escapeAttempt(
          "environment",
          `${name} given to a ${scope}-sandboxed command loads a workspace library into the host launcher`,
          async () => {
            rmSync(marker, { force: true });
            const sandbox = await createProcessSandbox({ scope, workspace: ground.workspace });
            expect(sandbox.kind).toBe("bubblewrap");
            const environment = { [name]: value(ground.workspace) };
            const result = await runSandboxed(sandbox, {
              command: "/usr/bin/bash",
              args: ["-c", `printf '%s' "$${name}"`],
              cwd: ground.workspace,
              env: environment,
            });
            // The variable reaches the command (its own loader reads it, as the sandbox user), never the host.
            expect(result.stdout).toBe(environment[name]);
            expect(existsSync(marker), "the planted library ran on the host").toBe(false);
            // Control: a host bash started with the same environment loads it.
            execFileSync("/usr/bin/bash", ["-c", "true"], {
              env: { PATH: "/usr/bin:/bin", ...environment },
              stdio: "ignore",
            });
            expect(existsSync(marker)).toBe(true);
          },
        );
      }
    }

    escapeAttempt("descriptors", "the environment pipe (fd 4 of the launcher) is still open in the command", async () => {
      const sandbox = await createProcessSandbox({ scope: "workspace", workspace: ground.workspace });
      const probe = (prefix: string) =>
        runSandboxed(sandbox, {
          command: "/usr/bin/bash",
          args: ["-c", `${prefix}[ -e /proc/self/fd/4 ] && readlink /proc/self/fd/4 || echo closed`],
          cwd: ground.workspace,
          env: { ATC_COMMAND_SECRET: "s" },
        });
      expect((await probe("")).stdout.trim()).toBe("closed");
      // Control: a descriptor the command opens there itself is seen.
      expect((await probe("exec 4</dev/null; ")).stdout.trim()).toBe("/dev/null");
    });

    escapeAttempt("environment", "bwrap's own init inside the sandbox carries the command's secrets", async () => {
      // The command's variables are set by bwrap for the command alone: its pid 1 (bwrap's init,
      // which the command may read and trace) keeps only the launcher's fixed environment.
      const sandbox = await createProcessSandbox({ scope: "workspace", workspace: ground.workspace });
      const result = await runSandboxed(sandbox, {
        command: "/usr/bin/bash",
        args: ["-c", "printf '%s|' \"$ATC_COMMAND_SECRET\"; tr '\\0' '\\n' </proc/1/environ"],
        cwd: ground.workspace,
        env: { ATC_COMMAND_SECRET: "line one\nline=two" },
      });
      expect(result.stdout.startsWith("line one\nline=two|"), result.stdout).toBe(true);
      expect(result.stdout.split("|")[1]).not.toContain("ATC_COMMAND_SECRET");
      expect(result.stdout.split("|")[1]).toContain("PATH=");
    });
  },
);
