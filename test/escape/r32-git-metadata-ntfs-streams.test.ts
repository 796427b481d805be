/**
 * Red team round 32: NTFS spellings of `.git` through the file tools. NTFS reads `name:stream`
 * as a stream of `name`, and `.git::$INDEX_ALLOCATION` as the directory `.git` itself (the
 * directory's index stream), so `.git::$INDEX_ALLOCATION/config` is `.git/config` there; git
 * refuses every such path on every platform (`core.protectNTFS`: a `.git` or `git~1` followed by
 * dots and spaces up to the end or a `:`, CVE-2019-1352). The file tools' git-state guard promises
 * to compare names as NTFS may take them ("as git's own protectNTFS"), and folded trailing dots
 * and `git~1`, but not a stream suffix. On this Linux host such a name is an ordinary directory,
 * so the attempt asserts the promise: every spelling is refused `git_metadata_refused` and nothing
 * is made, as git's own check refuses them (`git add` here says `invalid path`). Second attempt:
 * a sandboxed command makes links with these names to `.git` and the file tools write through
 * them (refused by the real-path check). Controls: ordinary names with colons and the same
 * suffixes on other names are written; through a link of the same shape to an ordinary
 * directory the write lands.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Run, ToolCallResult } from "agent-tool-catalog";
import { createRegistry } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createFileTools } from "../../src/tools/fs/file-tools.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);

/** Names NTFS takes for `.git` (or a file in it), each followed by what git executes or follows. */
const STREAM_SPELLINGS = [
  ".git::$INDEX_ALLOCATION/config",
  ".git::$INDEX_ALLOCATION/hooks/pre-commit",
  "GIT~1::$INDEX_ALLOCATION/config",
  ".GIT:x/hooks/post-checkout",
  ".git. :stream/config",
  "sub/.git::$DATA", // a `.git` file: `gitdir:` may point anywhere
];

/** Ordinary names with colons and the same suffixes. */
const ORDINARY = ["notes:v2.txt", ".gitx::$INDEX_ALLOCATION/config", "git:notes/config", "a::$DATA", ".github:x/config"];

const HOOK = "#!/bin/sh\ntouch planted\n";

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 32, NTFS stream names of .git"), () => {
  let ground: Playground;
  let counter = 0;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  /** A fresh repository in the workspace, and a run over the whole workspace. */
  function repository(): { repo: string; run: Run; relative: (file: string) => string } {
    const repo = path.join(ground.workspace, `repo-${++counter}`);
    mkdirSync(repo);
    execFileSync("git", ["init", "-q", repo]);
    const run = createRegistry({ tools: [...createFileTools(), createBashTool()] }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace: ground.workspace },
    });
    return { repo, run, relative: (file) => path.join(path.basename(repo), file) };
  }

  escapeAttempt(
    "git-metadata",
    "write and apply_patch (add, and move to) `.git::$INDEX_ALLOCATION/config`, `GIT~1::$INDEX_ALLOCATION/config`, `.GIT:x/hooks/…`, `sub/.git::$DATA`",
    async () => {
      const { repo, run, relative } = repository();
      const before = readdirSync(repo);
      const patch = (body: string) => run.call("apply_patch", { patch: `*** Begin Patch\n${body}\n*** End Patch` });
      writeFileSync(path.join(repo, "moved.txt"), "x\n");
      const answers: Record<string, string[]> = {};
      for (const name of STREAM_SPELLINGS) {
        answers[name] = [
          code(await run.call("write", { path: relative(name), content: HOOK })),
          code(await patch(`*** Add File: ${relative(name)}\n+#!/bin/sh\n+touch planted`)),
          code(await patch(`*** Update File: ${relative("moved.txt")}\n*** Move to: ${relative(name)}\n@@\n-x\n+y`)),
        ];
      }
      expect(
        Object.entries(answers).filter(([, codes]) => codes.some((answer) => answer !== "git_metadata_refused")),
        JSON.stringify(answers),
      ).toEqual([]);
      // Nothing was made beside what was there (the moved file stayed), and git's state is its own.
      expect(readdirSync(repo).sort()).toEqual([...before, "moved.txt"].sort());
      expect(readFileSync(path.join(repo, "moved.txt"), "utf8")).toBe("x\n");
      // Git refuses these paths itself (core.protectNTFS, on by default on every platform).
      mkdirSync(path.join(repo, ".git::$INDEX_ALLOCATION"));
      writeFileSync(path.join(repo, ".git::$INDEX_ALLOCATION", "config"), "x\n");
      const added = spawnSync("git", ["-C", repo, "add", ".git::$INDEX_ALLOCATION/config"], { encoding: "utf8" });
      expect(added.stderr).toContain("invalid path");
      // Control: ordinary names with colons and the same suffixes are written.
      for (const name of ORDINARY) {
        expect(code(await run.call("write", { path: relative(name), content: "ordinary\n" })), name).toBe("ok");
        expect(readFileSync(path.join(repo, name), "utf8")).toBe("ordinary\n");
      }
    },
    60_000,
  );

  escapeAttempt(
    "git-metadata",
    "a sandboxed command links `.git::$INDEX_ALLOCATION` and `GIT~1` to `.git`, the file tools write through the links",
    async () => {
      const { repo, run, relative } = repository();
      const config = readFileSync(path.join(repo, ".git", "config"), "utf8");
      const made = await sh(
        run,
        `cd ${path.basename(repo)} && ln -s .git '.git::$INDEX_ALLOCATION' && ln -s .git 'GIT~1' && mkdir real && ln -s real 'plain::$INDEX_ALLOCATION' && echo linked`,
      );
      expect(made.stdout.trim()).toBe("linked");
      const answers = [
        code(
          await run.call("write", { path: relative(".git::$INDEX_ALLOCATION/config"), content: "[core]\n\thooksPath = /tmp\n" }),
        ),
        code(await run.call("write", { path: relative("GIT~1/hooks/pre-commit"), content: HOOK })),
        code(
          await run.call("edit", {
            path: relative(".git::$INDEX_ALLOCATION/config"),
            old_text: "[core]",
            new_text: "[core]\n\thooksPath = /tmp",
          }),
        ),
      ];
      expect(answers).toEqual(["git_metadata_refused", "git_metadata_refused", "git_metadata_refused"]);
      expect(readFileSync(path.join(repo, ".git", "config"), "utf8")).toBe(config);
      expect(readdirSync(path.join(repo, ".git", "hooks")).includes("pre-commit")).toBe(false);
      // Control: a link of the same shape to an ordinary directory is written through.
      expect(code(await run.call("write", { path: relative("plain::$INDEX_ALLOCATION/config"), content: "ordinary\n" }))).toBe(
        "ok",
      );
      expect(readFileSync(path.join(repo, "real", "config"), "utf8")).toBe("ordinary\n");
    },
    60_000,
  );
});
