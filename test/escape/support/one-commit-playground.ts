import { writeFile } from "node:fs/promises";
import path from "node:path";
import { hostGit } from "./host-git.js";
import { type Playground, playground } from "./sandbox-harness.js";

/**
 * A new playground whose workspace is a repository with one commit (`a.txt`, branch `main`),
 * made by host git: the start of the attacks on a git directory's files (round 38). The
 * playground is pushed to `grounds`, which the caller disposes of after each test.
 */
export async function oneCommitPlayground(grounds: Playground[]): Promise<{ ground: Playground; root: string }> {
  const ground = await playground();
  grounds.push(ground);
  const root = ground.workspace;
  hostGit(root, ["init", "-q", "-b", "main"]);
  await writeFile(path.join(root, "a.txt"), "a\n");
  hostGit(root, ["add", "a.txt"]);
  hostGit(root, ["commit", "-q", "-m", "a"]);
  return { ground, root };
}
