import { describe, expect, it } from "vitest";
import {
  SANDBOX_EXEC_ENV_PATH,
  sandboxExecArguments,
  sandboxExecLaunch,
  sandboxExecParameters,
  sandboxExecProfile,
} from "./sandbox-exec-profile.js";

function balanced(profile: string): boolean {
  let depth = 0;
  for (const character of profile.replace(/"(?:[^"\\]|\\.)*"/g, "")) {
    if (character === "(") depth++;
    if (character === ")") depth--;
    if (depth < 0) return false;
  }
  return depth === 0;
}

describe("sandboxExecProfile", () => {
  it.each(["workspace", "local"] as const)("%s: denies by default and never allows the network", (scope) => {
    const profile = sandboxExecProfile(scope);
    expect(profile.startsWith("(version 1)\n(deny default)\n")).toBe(true);
    expect(profile).toContain("(deny network*)");
    expect(profile).not.toMatch(/\(allow\s+network/);
    expect(profile).not.toMatch(/\(allow\s+default/);
    expect(profile).not.toMatch(/mach-lookup[^)]*\*/);
    expect(balanced(profile)).toBe(true);
  });

  it("workspace: allows writes only under the workspace (minus git metadata) and a private temp dir", () => {
    const profile = sandboxExecProfile("workspace");
    const writeRules = profile.split("\n").filter((line) => line.includes("file-write*"));
    expect(writeRules.some((line) => /^\(allow file-write\*$/.test(line))).toBe(true);
    expect(profile).not.toMatch(/\(allow file-write\*\)/);
    expect(profile).toContain('(subpath (param "WORKSPACE"))');
    expect(profile).toContain('(require-not (subpath (param "GIT_HOOKS")))');
    expect(profile).toContain('(require-not (literal (param "GIT_CONFIG")))');
    expect(profile).toContain('(require-not (literal (param "GIT_DIR")))');
    expect(profile).toContain('(allow file-write* (subpath (param "PRIVATE_TMPDIR")))');
  });

  it("local: allows writes anywhere but still no network", () => {
    const profile = sandboxExecProfile("local");
    expect(profile).toContain("(allow file-write*)");
    expect(profile).not.toContain("WORKSPACE");
  });

  it("keeps paths out of the profile text: they travel as -D parameters", () => {
    const parameters = sandboxExecParameters({
      workspace: '/Users/me/evil") (allow network*',
      temporaryDirectory: "/private/tmp/x",
    });
    expect(parameters).toEqual({
      WORKSPACE: '/Users/me/evil") (allow network*',
      GIT_DIR: '/Users/me/evil") (allow network*/.git',
      GIT_HOOKS: '/Users/me/evil") (allow network*/.git/hooks',
      GIT_CONFIG: '/Users/me/evil") (allow network*/.git/config',
      GIT_INFO: '/Users/me/evil") (allow network*/.git/info',
      GIT_OBJECTS_INFO: '/Users/me/evil") (allow network*/.git/objects/info',
      GIT_CONFIG_WORKTREE: '/Users/me/evil") (allow network*/.git/config.worktree',
      GIT_COMMONDIR: '/Users/me/evil") (allow network*/.git/commondir',
      GIT_GITDIR: '/Users/me/evil") (allow network*/.git/gitdir',
      PRIVATE_TMPDIR: "/private/tmp/x",
    });
    const args = sandboxExecArguments("(version 1)", parameters, "--evil", ["-x"]);
    expect(args.slice(0, 2)).toEqual(["-p", "(version 1)"]);
    expect(args).toContain('-DWORKSPACE=/Users/me/evil") (allow network*');
    expect(args.slice(-3)).toEqual(["--", "--evil", "-x"]);
    expect(args.indexOf("--")).toBe(args.length - 3);
  });
});

describe("sandboxExecLaunch", () => {
  const environment = {
    PATH: "/usr/bin:/bin",
    API_TOKEN: "secret value",
    DYLD_INSERT_LIBRARIES: "/ws/planted.dylib",
    DYLD_FRAMEWORK_PATH: "/ws/frameworks",
    LD_PRELOAD: "/ws/planted.so",
    MallocStackLoggingDirectory: "/ws/logs",
  };

  it("keeps loader and malloc variables out of sandbox-exec's own environment and sets them inside with env", () => {
    const launch = sandboxExecLaunch("(version 1)", { WORKSPACE: "/ws" }, "/bin/bash", ["-c", "make"], environment);
    expect(launch.env).toEqual({ PATH: "/usr/bin:/bin", API_TOKEN: "secret value" });
    expect(launch.args.slice(launch.args.indexOf("--"))).toEqual([
      "--",
      SANDBOX_EXEC_ENV_PATH,
      "DYLD_INSERT_LIBRARIES=/ws/planted.dylib",
      "DYLD_FRAMEWORK_PATH=/ws/frameworks",
      "LD_PRELOAD=/ws/planted.so",
      "MallocStackLoggingDirectory=/ws/logs",
      "/bin/bash",
      "-c",
      "make",
    ]);
    // Only the moved variables are on the command line: the others may be secrets.
    expect(launch.args.join(" ")).not.toContain("secret value");
  });

  it("without such variables: the command follows -- directly, the environment as given", () => {
    const launch = sandboxExecLaunch("(version 1)", {}, "/bin/bash", ["-c", "make"], { PATH: "/bin", HOME: "/tmp/h" });
    expect(launch).toEqual({
      args: ["-p", "(version 1)", "--", "/bin/bash", "-c", "make"],
      env: { PATH: "/bin", HOME: "/tmp/h" },
    });
  });

  it("a command path holding = is not taken for a variable by env", () => {
    const launch = sandboxExecLaunch("(version 1)", {}, "/opt/a=b/tool", ["x"], { LD_PRELOAD: "/ws/p.so" });
    expect(launch.args.slice(launch.args.indexOf("--") + 1)).toEqual([
      SANDBOX_EXEC_ENV_PATH,
      "LD_PRELOAD=/ws/p.so",
      "/bin/sh",
      "-c",
      'exec "$0" "$@"',
      "/opt/a=b/tool",
      "x",
    ]);
  });
});
