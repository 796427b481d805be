// Red team round 11: a multi-file change that made nested directories and then failed (ENOSPC
// on a full tmpfs while its temporary files were written) said "Nothing was changed. No file was
// changed." but left a directory behind under `unrestricted` / `local`. Those scopes open each
// file's directory on its own and in parallel, so one new directory (`p`) can be listed as made
// by one file's open (`p/s.txt`) while the other open only made its child (`p/q` for
// `p/q/r.txt`); the rollback removed each file's directories in turn, tried `p` while `p/q`
// still stood, and never came back to it. It now removes all of them together, deepest first.
// The crash recovery of a prepared intent log did the same, entry by entry, in the log's order.
// And a change that failed after its commit point (a delete refused: an immutable file) restored
// every file and said "No file was changed", in every scope, but kept the directories it had made.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools } from "agent-tool-catalog/tools";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { intentDirectory } from "../../src/tools/fs/intent-log.js";
import { processStartTime } from "../../src/tools/fs/process-identity.js";
import { failure } from "../support/call-results.js";
import { canMakeImmutable } from "./support/dead-writer-log.js";

const isRoot = process.getuid?.() === 0;
let mountPoint: string;
beforeEach(async () => {
  mountPoint = await mkdtemp(path.join(tmpdir(), "atc-made-dirs-"));
});
afterEach(async () => {
  await rm(mountPoint, { recursive: true, force: true });
});

/** Files that share new directories at several depths; the first is too big for the disk. */
function nestedPatch(big: string): string {
  return [
    "*** Begin Patch",
    "*** Add File: p/q/r.txt",
    `+${big}`,
    "*** Add File: p/s.txt",
    "+small",
    "*** Add File: p/q/t/u.txt",
    "+small",
    "*** Add File: p/v/w.txt",
    "+small",
    "*** Add File: x/y/z.txt",
    "+small",
    "*** End Patch",
  ].join("\n");
}

describe.skipIf(!isRoot)("a failed change removes every directory it made (needs root to mount a tmpfs)", () => {
  for (const sandbox of ["unrestricted", "workspace"] as const) {
    it(`${sandbox}: ENOSPC while writing five new files in shared new directories leaves only what was there`, async () => {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]);
      try {
        await writeFile(path.join(mountPoint, "keep.txt"), "keep\n");
        const run = createRegistry({ tools: createFileTools() }).createRun({
          profile: "full",
          permissions: { sandbox, workspace: mountPoint },
        });
        // Several rounds: which parallel open makes `p` first is up to the thread pool.
        for (let round = 0; round < 5; round++) {
          const error = failure(await run.call("apply_patch", { patch: nestedPatch("y".repeat(1_500_000)) }));
          expect(error.code).toBe("no_space");
          expect(error.message).toContain("No file was changed");
          expect((await readdir(mountPoint, { recursive: true })).sort()).toEqual(["keep.txt"]);
        }
        // Positive control: with room for it the same patch lands, directories and all, and undo
        // takes the directories away again.
        const result = await run.call("apply_patch", { patch: nestedPatch("y".repeat(1_000)) });
        expect(result.ok).toBe(true);
        expect((await readdir(mountPoint, { recursive: true })).sort()).toEqual(
          [
            "keep.txt",
            "p",
            "p/q",
            "p/q/r.txt",
            "p/q/t",
            "p/q/t/u.txt",
            "p/s.txt",
            "p/v",
            "p/v/w.txt",
            "x",
            "x/y",
            "x/y/z.txt",
          ].sort(),
        );
        expect((await run.call("undo", {})).ok).toBe(true);
        expect((await readdir(mountPoint, { recursive: true })).sort()).toEqual(["keep.txt"]);
      } finally {
        execFileSync("umount", [mountPoint]);
      }
    }, 60_000);
  }
});

describe("crash recovery of a prepared change removes every directory it made", () => {
  for (const sandbox of ["unrestricted", "workspace"] as const) {
    it(`${sandbox}: a dead process's log naming p (for p/s.txt) before p/q (for p/q/r.txt) leaves neither`, async () => {
      const root = await realpath(mountPoint);
      await writeFile(path.join(root, "keep.txt"), "keep\n");
      // What a writer killed after its temporary files leaves: the directories it made, each with
      // a temporary file, and its prepared log, owned by a process that no longer runs.
      await mkdir(path.join(root, "p", "q"), { recursive: true });
      await writeFile(path.join(root, "p", ".atc-s.tmp"), "small\n");
      await writeFile(path.join(root, "p", "q", ".atc-r.tmp"), "small\n");
      const dead = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
      const owner = `${dead}:${processStartTime(process.pid) ?? "?"}`;
      const entries = [
        { directory: path.join(root, "p"), name: "s.txt", temporary: ".atc-s.tmp", created: [path.join(root, "p")] },
        { directory: path.join(root, "p", "q"), name: "r.txt", temporary: ".atc-r.tmp", created: [path.join(root, "p", "q")] },
      ];
      const intents = intentDirectory(root);
      await mkdir(intents, { recursive: true, mode: 0o700 });
      const log = path.join(intents, `${dead}-000000000000.json`);
      await writeFile(log, JSON.stringify({ owner, root, state: "prepared", entries }), { mode: 0o600 });
      // Any file tool's first use of the workspace recovers it.
      const run = createRegistry({ tools: createFileTools() }).createRun({
        profile: "full",
        permissions: { sandbox, workspace: root },
      });
      const listed = await run.call("ls", { path: "." });
      expect(listed.ok).toBe(true);
      expect((await readdir(root, { recursive: true })).sort()).toEqual(["keep.txt"]);
      expect((await readdir(intents)).filter((name) => name.startsWith(`${dead}-`))).toEqual([]);
    });
  }

  it("control: a directory that holds a file of someone else's since is kept, with its parents", async () => {
    const root = await realpath(mountPoint);
    await mkdir(path.join(root, "p", "q"), { recursive: true });
    await writeFile(path.join(root, "p", ".atc-s.tmp"), "small\n");
    await writeFile(path.join(root, "p", "q", "theirs.txt"), "theirs\n");
    const dead = execFileSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const entries = [
      { directory: path.join(root, "p"), name: "s.txt", temporary: ".atc-s.tmp", created: [path.join(root, "p")] },
      { directory: path.join(root, "p", "q"), name: "r.txt", created: [path.join(root, "p", "q")] },
    ];
    const intents = intentDirectory(root);
    await mkdir(intents, { recursive: true, mode: 0o700 });
    await writeFile(
      path.join(intents, `${dead}-000000000001.json`),
      JSON.stringify({ owner: `${dead}:?`, root, state: "prepared", entries }),
      {
        mode: 0o600,
      },
    );
    const run = createRegistry({ tools: createFileTools() }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace: root },
    });
    expect((await run.call("ls", { path: "." })).ok).toBe(true);
    expect((await readdir(root, { recursive: true })).sort()).toEqual(["p", "p/q", "p/q/theirs.txt"]);
  });
});

describe.skipIf(!canMakeImmutable(tmpdir()))(
  "a change that fails after its commit point removes the directories it made (needs chattr +i)",
  () => {
    const patch = [
      "*** Begin Patch",
      "*** Add File: new/dir/a.txt",
      "+hello",
      "*** Add File: new/b.txt",
      "+hello",
      "*** Update File: zz.txt",
      "@@",
      "-old",
      "+new",
      "*** Delete File: victim.txt",
      "*** End Patch",
    ].join("\n");

    for (const sandbox of ["unrestricted", "workspace"] as const) {
      it(`${sandbox}: an immutable file to delete: "No file was changed" and nothing made is left`, async () => {
        await writeFile(path.join(mountPoint, "victim.txt"), "v\n");
        await writeFile(path.join(mountPoint, "zz.txt"), "old\n");
        const victim = path.join(mountPoint, "victim.txt");
        execFileSync("chattr", ["+i", victim]);
        try {
          const run = createRegistry({ tools: createFileTools() }).createRun({
            profile: "full",
            permissions: { sandbox, workspace: mountPoint },
          });
          const error = failure(await run.call("apply_patch", { patch }));
          expect(error.message).toContain("No file was changed");
          expect((await readdir(mountPoint, { recursive: true })).sort()).toEqual(["victim.txt", "zz.txt"]);
          // Control: once the file may be deleted, the same patch applies in full, directories and all.
          execFileSync("chattr", ["-i", victim]);
          expect((await run.call("apply_patch", { patch })).ok).toBe(true);
          expect((await readdir(mountPoint, { recursive: true })).sort()).toEqual([
            "new",
            "new/b.txt",
            "new/dir",
            "new/dir/a.txt",
            "zz.txt",
          ]);
        } finally {
          // Already cleared (and the file deleted) when the control ran.
          if (existsSync(victim)) execFileSync("chattr", ["-i", victim], { stdio: "ignore" });
        }
      });
    }
  },
);
