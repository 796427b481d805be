import { mkdirSync } from "node:fs";
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

/**
 * {@link oneCommitPlayground} beside a host repository (`hostrepo` in the playground's outside
 * directory) whose one commit holds `secret.txt` as a loose object: what a command links a git
 * directory's entries to (rounds 38 and 41). `secret` is unique to this process and `label`.
 */
export async function playgroundBesideHostSecret(grounds: Playground[], label: string) {
  const { ground, root } = await oneCommitPlayground(grounds);
  const host = path.join(ground.outside, "hostrepo");
  mkdirSync(host);
  hostGit(host, ["init", "-q", "-b", "main"]);
  const secret = `${label}-secret-${process.pid}`;
  await writeFile(path.join(host, "secret.txt"), `${secret}\n`);
  hostGit(host, ["add", "secret.txt"]);
  hostGit(host, ["commit", "-q", "-m", "secret"]);
  const blob = hostGit(host, ["rev-parse", "main:secret.txt"]).trim();
  const commit = hostGit(host, ["rev-parse", "main"]).trim();
  return { ground, root, host, secret, blob, commit };
}
