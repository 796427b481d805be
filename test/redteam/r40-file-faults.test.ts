/**
 * Red team round 40: the file tools' promises under faults they did not plan for. A process's
 * open-file limit lowered by another process (`prlimit --pid`) after the tools read it (once per
 * process, at their first batch), so a 200-directory apply_patch meets EMFILE where it sized its
 * windows for a million descriptors; a multi-file patch one of whose targets is a FIFO, a
 * directory or git state; the workspace's whole file system remounted read-only by a watcher
 * process the moment the change's intent log says `committed`. The promises: all or nothing; a
 * failure before the commit point says that no file was changed; a result never claims a state
 * that is not (or will not be, after recovery) on disk (README, "File tools: what holds",
 * Failures). Real processes, real limits, real mounts; those attempts need root (`[needs root]`,
 * counted by the summary reporter and a failure under the CI flag, test/support/capabilities.ts).
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { failure } from "../support/call-results.js";
import { capability } from "../support/capabilities.js";
import { nodeChild, spawnNode } from "../support/child-entry.js";
import { printedLines } from "../support/printed-lines.js";
import { stopProcess } from "../support/stop-process.js";
import { twoFilePatch } from "../tools/support/two-file-patch.js";

const run = promisify(execFile);
const child = path.join(import.meta.dirname, "r40-limit-lowered-child.mjs");
const root = capability("root");

let workspace: string;
beforeEach(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "atc-r40-"));
});
afterEach(async () => {
  await rm(workspace, { recursive: true, force: true });
});

async function seed(dirs: number): Promise<void> {
  for (let i = 0; i < dirs; i++) {
    await mkdir(path.join(workspace, `d${i}`));
    await writeFile(path.join(workspace, `d${i}`, "f.txt"), `old ${i}\n`);
  }
}
/** How many of the `dirs` files are old and new, and the temporary files left in the workspace. */
async function onDisk(dirs: number): Promise<{ old: number; new: number; other: number; left: string[] }> {
  const tally = { old: 0, new: 0, other: 0 };
  for (let i = 0; i < dirs; i++) {
    const text = await readFile(path.join(workspace, `d${i}`, "f.txt"), "utf8");
    if (text === `old ${i}\n`) tally.old++;
    else if (text === `new ${i}\n`) tally.new++;
    else tally.other++;
  }
  const left = (await readdir(workspace, { recursive: true })).filter((name) => /\.atc-|\.tmp$/.test(name));
  return { ...tally, left };
}
interface ChildAnswer {
  lowered: boolean;
  result: { ok: boolean; output?: string; error?: { code: string; message: string } };
}
async function patchInChild(dirs: number, limit: number, mode: "before-call" | "during-call" | "none"): Promise<ChildAnswer> {
  const { args, env } = nodeChild(child, [JSON.stringify({ workspace, dirs, limit, mode })]);
  const { stdout } = await run(process.execPath, args, { env, timeout: 60_000 });
  return JSON.parse(stdout.trim().split("\n").at(-1) as string) as ChildAnswer;
}
/** All or nothing, and told as it is: ok with every file new, or a failure saying no file changed with every file old. */
async function expectAllOrNothingTold(answer: ChildAnswer, dirs: number): Promise<"ok" | "failed"> {
  const state = await onDisk(dirs);
  expect(state.other).toBe(0);
  expect(state.left).toEqual([]);
  if (answer.result.ok) {
    expect(state.new).toBe(dirs);
    return "ok";
  }
  expect(state.old).toBe(dirs);
  expect(answer.result.error?.message).toContain("No file was changed");
  return "failed";
}

describe.skipIf(root.missing)(root.label("r40: the open-file limit lowered by another process after the tools read it"), () => {
  /** Past the limit once it is lowered: a directory handle each, all held at once, at most 60 descriptors. */
  const DIRS = 200;
  const LIMIT = 60;

  it("lowered between a first call and a 200-directory apply_patch: nothing changed, and the answer says so", async () => {
    await seed(DIRS);
    const answer = await patchInChild(DIRS, LIMIT, "before-call");
    expect(answer.lowered).toBe(true);
    expect(await expectAllOrNothingTold(answer, DIRS)).toBe("failed");
    expect(answer.result.error?.code).toBe("too_many_open_files");
  }, 90_000);

  it("lowered by a background prlimit at the patch's first temporary file: all or nothing, told as it is", async () => {
    await seed(DIRS);
    const outcomes: string[] = [];
    // Until the fault is seen once (3 in 4 attempts see it here; the others complete first), at most 5.
    for (let attempt = 0; attempt < 5 && !outcomes.includes("failed"); attempt++) {
      const answer = await patchInChild(DIRS, LIMIT, "during-call");
      expect(answer.lowered).toBe(true);
      outcomes.push(await expectAllOrNothingTold(answer, DIRS));
      if (answer.result.ok) {
        // Back to the seed for the next attempt.
        await rm(workspace, { recursive: true, force: true });
        await mkdir(workspace);
        await seed(DIRS);
      }
    }
    // A fault seen at least once (else the attempt tried nothing).
    expect(outcomes).toContain("failed");
  }, 180_000);

  it("control: the same patch with the limit left alone applies in full", async () => {
    await seed(DIRS);
    const answer = await patchInChild(DIRS, LIMIT, "none");
    expect(answer.result.error).toBeUndefined();
    expect(await expectAllOrNothingTold(answer, DIRS)).toBe("ok");
  }, 90_000);
});

describe("r40: a multi-file patch whose second target is not a regular file", () => {
  it("a FIFO, a directory or git state in its place: refused, the first file unchanged, and the answer says no file was changed", async () => {
    await writeFile(path.join(workspace, "a.txt"), "old a\n");
    execFileSync("mkfifo", [path.join(workspace, "fifo.txt")]);
    await mkdir(path.join(workspace, "dir.txt"));
    const runOf = () =>
      createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
    for (const [second, code] of [
      ["fifo.txt", "special_file_refused"],
      ["dir.txt", "is_a_directory"],
    ] as const) {
      const error = failure(await runOf().call("apply_patch", { patch: twoFilePatch(second) }));
      expect(error.code).toBe(code);
      expect(error.message).toContain("No file was changed");
      expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old a\n");
    }
    // The same from the run's preflight (git state refused before the handler runs).
    const gitState = failure(
      await runOf().call("apply_patch", {
        patch: [
          "*** Begin Patch",
          "*** Update File: a.txt",
          "-old a",
          "+new a",
          "*** Add File: .git/config",
          "+x",
          "*** End Patch",
        ].join("\n"),
      }),
    );
    expect(gitState.code).toBe("git_metadata_refused");
    expect(gitState.message).toContain("No file was changed");
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("old a\n");
    // Control: a regular second file, the same patch applies to both.
    await rm(path.join(workspace, "dir.txt"), { recursive: true });
    await writeFile(path.join(workspace, "dir.txt"), "old b\n");
    const applied = await runOf().call("apply_patch", { patch: twoFilePatch("dir.txt") });
    expect(applied.ok).toBe(true);
    expect(await readFile(path.join(workspace, "a.txt"), "utf8")).toBe("new a\n");
    expect(await readFile(path.join(workspace, "dir.txt"), "utf8")).toBe("new b\n");
  });
});

describe.skipIf(root.missing)(root.label("r40: the workspace's file system made read-only at the commit point"), () => {
  const DIRS = 20;
  const patchChild = path.join(import.meta.dirname, "r40-patch-child.mjs");
  const watcher = path.join(import.meta.dirname, "r40-ro-on-commit.mjs");

  it("a change that can neither complete nor be taken back is never told as changing no file; recovery completes it", async () => {
    const mountPoint = await mkdtemp(path.join(tmpdir(), "atc-r40-ro-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=4m", "tmpfs", mountPoint]);
    try {
      workspace = path.join(mountPoint, "ws");
      await mkdir(workspace);
      await seed(DIRS);
      const changing = spawnNode(patchChild, [JSON.stringify({ workspace, dirs: DIRS })], { stdio: ["pipe", "pipe", "pipe"] });
      const changingSaid = printedLines(changing, "patch child");
      let answer = "";
      changing.stdout?.on("data", (chunk) => {
        answer += String(chunk);
      });
      try {
        await changingSaid.said("ready");
        const fault = spawn(process.execPath, [watcher, intentDirectory(workspace), mountPoint], {
          stdio: ["pipe", "pipe", "pipe"],
        });
        const faultSaid = printedLines(fault, "read-only watcher");
        let faultOut = "";
        fault.stdout?.on("data", (chunk) => {
          faultOut += String(chunk);
        });
        try {
          await faultSaid.said("watching");
          fault.stdin?.write(`${changing.pid}\n`);
          changing.stdin?.write("go\n");
          await changingSaid.closed;
          await faultSaid.said("read-only").catch((error: unknown) => {
            throw new Error(`${String(error)}; the watcher said: ${faultOut}`);
          });
        } finally {
          await stopProcess(fault);
        }
      } finally {
        await stopProcess(changing);
      }
      const told = (JSON.parse(answer.trim().split("\n").at(-1) as string) as ChildAnswer).result;
      // Nothing more could be renamed once it landed (usually before the first rename): a failure.
      expect(told.ok).toBe(false);
      execFileSync("mount", ["-o", "remount,rw", mountPoint]);
      // The next file call finishes the change: this process's first call in the workspace recovers it.
      const reader = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox: "workspace", workspace },
      });
      expect((await reader.call("read", { path: "seed.txt" })).ok).toBe(true);
      const after = await onDisk(DIRS);
      expect(after.other).toBe(0);
      expect(after.left).toEqual([]);
      // Whatever the files end as, the answer did not claim otherwise: a change handed to recovery
      // is partially_applied and says the recovery completes it, never "No file was changed".
      if (after.new === DIRS) {
        expect(told.error?.code).toBe("partially_applied");
        expect(told.error?.message).not.toContain("No file was changed");
        expect(told.error?.message).toContain("completes it");
      } else {
        expect(after.old).toBe(DIRS);
        expect(told.error?.message).toContain("No file was changed");
      }
      // Control: the same patch on the same file system, writable, applies in full.
      workspace = path.join(mountPoint, "control");
      await mkdir(workspace);
      await seed(DIRS);
      const patch = ["*** Begin Patch"];
      for (let i = 0; i < DIRS; i++) patch.push(`*** Update File: d${i}/f.txt`, `-old ${i}`, `+new ${i}`);
      patch.push("*** End Patch");
      const control = await createRegistry({ tools: createFileTools() })
        .createRun({ profile: "full", permissions: { sandbox: "workspace", workspace } })
        .call("apply_patch", { patch: patch.join("\n") });
      expect(control.ok).toBe(true);
      expect((await onDisk(DIRS)).new).toBe(DIRS);
    } finally {
      execFileSync("umount", ["-l", mountPoint]);
      await rm(mountPoint, { recursive: true, force: true });
      workspace = await mkdtemp(path.join(tmpdir(), "atc-r40-"));
    }
  }, 120_000);
});

const built = existsSync(path.join(import.meta.dirname, "../../dist/tools/index.cjs"));
describe.skipIf(!built)(
  "r40: a change killed at its commit point, recovered by two processes each loading both builds (needs the build)",
  () => {
    const DIRS = 20;

    it("every file new once, the log replayed once, nothing left; the killed change had left temporary files", async () => {
      // The killer stops the change at each step of its log and kills it once the log says
      // committed; a watch event the loaded machine delivered late let the change finish its
      // renames first (the clean-clone CI of 46c5bb43, load ~10 beside another run: no temporary
      // file left, so the attack missed its aim). Such a miss is made again in a new workspace, up
      // to 5 times; the attack must still land, and what follows is checked on the one that did.
      let crashed = { old: 0, new: 0, other: 0, left: [] as string[] };
      for (let attempt = 0; attempt < 5 && crashed.left.length === 0; attempt++) {
        if (attempt > 0) {
          await rm(intentDirectory(workspace), { recursive: true, force: true });
          await rm(workspace, { recursive: true, force: true });
          workspace = await mkdtemp(path.join(tmpdir(), "atc-r40-"));
        }
        await seed(DIRS);
        const changing = spawnNode(
          path.join(import.meta.dirname, "r40-patch-child.mjs"),
          [JSON.stringify({ workspace, dirs: DIRS })],
          {
            stdio: ["pipe", "pipe", "pipe"],
            format: "dist",
          },
        );
        const changingSaid = printedLines(changing, "patch child");
        try {
          await changingSaid.said("ready");
          const killer = spawn(
            process.execPath,
            [path.join(import.meta.dirname, "r40-kill-on-commit.mjs"), intentDirectory(workspace)],
            {
              stdio: ["pipe", "pipe", "pipe"],
            },
          );
          const killerSaid = printedLines(killer, "killer");
          try {
            await killerSaid.said("watching");
            killer.stdin?.write(`${changing.pid}\n`);
            changing.stdin?.write("go\n");
            await killerSaid.said("killed at-commit");
          } finally {
            await stopProcess(killer);
          }
        } finally {
          await stopProcess(changing);
        }
        crashed = await onDisk(DIRS);
      }
      // The attempt reached what it aimed at: killed past the commit point, its temporary files there.
      expect(crashed.left.length).toBeGreaterThan(0);
      expect(crashed.other).toBe(0);
      const go = path.join(workspace, "..", `${path.basename(workspace)}.go`);
      const recoverers = [0, 1].map(() =>
        run(
          process.execPath,
          nodeChild(path.join(import.meta.dirname, "r40-recover-both.mjs"), [workspace, go, String(DIRS)], { format: "dist" })
            .args,
          {
            timeout: 60_000,
          },
        ),
      );
      try {
        // Both start their recoveries together only if both are loaded when the file appears: each
        // says so (a fixed wait was 1.5 s of idle time, and too short on a machine loaded enough).
        await Promise.all(recoverers.map((recoverer, i) => printedLines(recoverer.child, `recoverer ${i}`).said("loaded")));
        await writeFile(go, "");
        const answers = (await Promise.all(recoverers)).map(
          ({ stdout }) => JSON.parse(stdout.trim().split("\n").at(-1) as string) as string[][],
        );
        // Each build in each process read every file new: none saw a half-recovered workspace.
        for (const builds of answers)
          for (const contents of builds) for (const [i, text] of contents.entries()) expect(text).toContain(`new ${i}`);
      } finally {
        await rm(go, { force: true });
      }
      const after = await onDisk(DIRS);
      expect(after.new).toBe(DIRS);
      expect(after.left).toEqual([]);
      expect((await readdir(intentDirectory(workspace)).catch(() => [])).filter((name) => name.endsWith(".json"))).toEqual([]);
    }, 120_000);
  },
);
