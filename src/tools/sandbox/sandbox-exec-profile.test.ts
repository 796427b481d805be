import { describe, expect, it } from "vitest";
import { sandboxExecArguments, sandboxExecParameters, sandboxExecProfile } from "./sandbox-exec-profile.js";

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
