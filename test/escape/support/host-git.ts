import { execFileSync } from "node:child_process";

/**
 * Runs the host's `git` in `cwd` with a fixed committer identity (commits made to set up an
 * attack do not depend on the machine's git config) and a 20 s bound; its stdout.
 */
export function hostGit(cwd: string, args: readonly string[]): string {
  return execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 20_000,
  });
}

/**
 * Runs the host's `git` in `cwd` as the user would after an attack (their own config, a 20 s
 * bound) and never throws: its stdout, or on failure its stderr, for a test to read what git said.
 */
export function hostGitOutput(cwd: string, args: readonly string[]): string {
  try {
    return execFileSync("git", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 20_000 });
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? error);
  }
}
