/** The big workspace of bench/tools/sandbox-walk-cpu.ts and test/tools/git-walk-cpu.test.ts. */
import { execFileSync } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * Makes a workspace (a git repository) of about `directoryCount` directories two levels deep
 * (`a<i>/b<j>`), `fileCount` empty files spread over them, three nested repositories and a
 * `node_modules` of 1,000 files, at `target` (made) or a new temporary directory. Returns its real path.
 */
export function bigWorkspace(directoryCount: number, fileCount: number, target?: string): string {
  if (target !== undefined) mkdirSync(target, { recursive: true });
  const workspace = realpathSync(target ?? mkdtempSync(path.join(tmpdir(), "atc-walkcpu-")));
  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-c", "user.email=a@example.com", "-c", "user.name=A", ...args], { cwd, stdio: "ignore" });
  git(workspace, "init", "-q", "-b", "main");
  const top = Math.max(1, Math.round(Math.sqrt(directoryCount / 2)));
  const per = Math.max(1, Math.floor(directoryCount / top) - 1);
  const made: string[] = [];
  for (let a = 0; a < top; a++) {
    for (let b = 0; b < per; b++) {
      const directory = path.join(workspace, `a${a}`, `b${b}`);
      mkdirSync(directory, { recursive: true });
      made.push(directory);
    }
  }
  for (let index = 0; index < fileCount; index++) {
    closeSync(openSync(path.join(made[index % made.length] as string, `f${index}.txt`), "w"));
  }
  const modules = path.join(workspace, "node_modules", "pkg", "lib");
  mkdirSync(modules, { recursive: true });
  for (let index = 0; index < 1000; index++) closeSync(openSync(path.join(modules, `m${index}.js`), "w"));
  for (const nested of ["a0/b0", "a1/b1", `a${top - 1}/b${per - 1}`]) git(path.join(workspace, nested), "init", "-q");
  return workspace;
}
