import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, realpath, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { gitProtection, gitScanCounts } from "../../src/tools/sandbox/git-protection.js";
import { shortRacyMargin } from "../support/short-racy-margin.js";

/**
 * The workspace sandbox scans the workspace for git directories at every spawn; listings of
 * directories that provably did not change are reused. These tests age a tree past the racy
 * margin once, then change it the ways a sandboxed command could (new `.git`, a `HEAD` rewritten,
 * times set back with utimes) and check that the next scan still protects what it must.
 */
let workspace: string;
const deep = () => path.join(workspace, "a", "b", "c");

/**
 * Remembers a path's access and modification times to the nanosecond (in a reference file, as
 * `touch -r` copies them); the returned function sets them back, as a command could.
 */
async function rememberTimes(target: string): Promise<() => Promise<void>> {
  const reference = path.join(path.dirname(workspace), `${path.basename(workspace)}-times-${Math.random()}`);
  execFileSync("touch", ["-r", target, reference]);
  const mtimeNs = (await stat(target, { bigint: true })).mtimeNs;
  return async () => {
    execFileSync("touch", ["-h", "-r", reference, target]);
    await rm(reference, { force: true });
    // Exactly as before: the listing's own times cannot tell the change.
    expect((await stat(target, { bigint: true })).mtimeNs).toBe(mtimeNs);
  };
}

const scanned = () => {
  const before = { ...gitScanCounts };
  const args = gitProtection(workspace).args;
  return { args, listed: gitScanCounts.listed - before.listed, reused: gitScanCounts.reused - before.reused };
};

let restoreRacyMargin: (() => void) | undefined;
beforeAll(async () => {
  workspace = await realpath(await mkdtemp(path.join(tmpdir(), "atc-gitscan-")));
  await mkdir(deep(), { recursive: true });
  await mkdir(path.join(workspace, "bare"), { recursive: true });
  await writeFile(path.join(workspace, "bare", "HEAD"), "not a ref\n");
  await writeFile(path.join(workspace, "bare", "config"), "[core]\n");
  for (let index = 0; index < 20; index++) await mkdir(path.join(workspace, "many", `d${index}`), { recursive: true });
  // Past the racy margin (2.5 s by default; 200 ms here, where file times are fine-grained):
  // from now on unchanged listings can be reused.
  restoreRacyMargin = await shortRacyMargin();
}, 10_000);

afterAll(async () => {
  restoreRacyMargin?.();
  await rm(workspace, { recursive: true, force: true });
});

describe("the git scan of the workspace sandbox reuses unchanged listings", () => {
  it("positive control: an unchanged tree is listed once, then reused, with the same protection", () => {
    const first = scanned();
    const second = scanned();
    expect(second.args).toEqual(first.args);
    expect(second.listed).toBe(0);
    expect(second.reused).toBeGreaterThan(20);
  });

  it("a .git made deep in the tree after a cached scan is protected at the next scan, its directory's times set back", async () => {
    scanned();
    const restore = await rememberTimes(deep());
    await mkdir(path.join(deep(), ".git", "hooks"), { recursive: true });
    await writeFile(path.join(deep(), ".git", "config"), "[core]\n");
    await restore();
    const { args } = scanned();
    expect(args).toContain(path.join(deep(), ".git", "config"));
    expect(args).toContain(path.join(deep(), ".git", "hooks"));
    await rm(path.join(deep(), ".git"), { recursive: true, force: true });
  });

  it("a HEAD rewritten to git's content after a cached scan makes its directory a protected git directory", async () => {
    const before = scanned();
    expect(before.args).not.toContain(path.join(workspace, "bare", "HEAD"));
    const restore = await rememberTimes(path.join(workspace, "bare", "HEAD"));
    await writeFile(path.join(workspace, "bare", "HEAD"), "ref: refs/heads/x\n");
    await restore();
    const { args } = scanned();
    expect(args).toContain(path.join(workspace, "bare", "HEAD"));
    expect(args).toContain(path.join(workspace, "bare", "config"));
  });

  it("a .git file pointing at a new git directory is followed at the next scan", async () => {
    scanned();
    const target = path.join(workspace, "many", "d3", "store");
    await mkdir(path.join(target, "info"), { recursive: true });
    await writeFile(path.join(target, "HEAD"), "ref: refs/heads/main\n");
    const holder = path.join(workspace, "many", "d7");
    const restore = await rememberTimes(holder);
    await writeFile(path.join(holder, ".git"), `gitdir: ${target}\n`);
    await restore();
    const { args } = scanned();
    expect(args).toContain(path.join(holder, ".git"));
    expect(args).toContain(path.join(target, "info"));
  });
});

describe("set-id files in reused listings", () => {
  it("a chmod u+s or g+s on an existing file of a cached directory binds it at the next scan; cleared, it is not bound", async () => {
    const file = path.join(deep(), "tool");
    await writeFile(file, "#!/bin/sh\n");
    await chmod(file, 0o755);
    // Listed with the file, then past the racy margin: the directory's listing is reused from now on.
    scanned();
    await new Promise((resolve) => setTimeout(resolve, 300));
    scanned();
    // Positive control: an ordinary file is not bound.
    const plain = scanned();
    expect(plain.listed).toBe(0);
    expect(plain.args).not.toContain(file);
    for (const mode of [0o4755, 0o2755]) {
      await chmod(file, mode);
      const after = scanned();
      // The directory did not change (only the file's change time did): its listing was reused.
      expect(after.listed).toBe(0);
      const bound = after.args.indexOf(file);
      expect(bound, `mode ${mode.toString(8)}`).toBeGreaterThan(0);
      expect(after.args.slice(bound - 1, bound + 2)).toEqual(["--ro-bind", file, file]);
    }
    await chmod(file, 0o755);
    expect(scanned().args).not.toContain(file);
    await rm(file);
  });
});
