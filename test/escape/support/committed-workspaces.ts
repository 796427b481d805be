import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach } from "vitest";
import { hostGit } from "./host-git.js";
import { type Playground, playground } from "./sandbox-harness.js";

/**
 * For a describe block whose attacks each need a repository of their own: returns a maker of
 * playground workspaces holding a git repository on `main` with one commit (`a.txt`), each
 * disposed after its test. Call inside the describe block.
 */
export function committedWorkspaces(): () => Promise<string> {
  const grounds: Playground[] = [];
  afterEach(async () => {
    for (const ground of grounds.splice(0)) await ground.dispose();
  });
  return async () => {
    const ground = await playground();
    grounds.push(ground);
    hostGit(ground.workspace, ["init", "-q", "-b", "main"]);
    writeFileSync(path.join(ground.workspace, "a.txt"), "a\n");
    hostGit(ground.workspace, ["add", "a.txt"]);
    hostGit(ground.workspace, ["commit", "-q", "-m", "init"]);
    return ground.workspace;
  };
}
