/**
 * Red team round 31: names at and past the kernel's limits in every file tool (sandbox
 * "workspace"). NAME_MAX is 255 bytes, not characters (85 `€` are 255 bytes, 86 are 258), and
 * PATH_MAX is 4,096 bytes for one path given to the kernel, while a tree can be deeper than that
 * (a command makes it one directory at a time). A tool that made its temporary file by adding a
 * suffix to the target's name could not replace a file whose name is 255 bytes (the write lost,
 * or an error the model cannot act on); one that threw on `ENAMETOOLONG` would reject the call.
 * Held when: at 255 bytes each tool does its work and leaves no stray file; past it the tools that
 * make files answer `name_too_long`, the others find nothing, and nothing is created; in a tree
 * 6,000 bytes deep a sandboxed command made, `glob` and `grep` answer and say which directories
 * they could not reach (no "no match" claimed over a file that exists), and the deepest file's
 * whole path is `name_too_long` for read and write (control: the command reaches it in two steps).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry, type Run, type ToolCallResult } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { createFileTools } from "../../src/tools/fs/file-tools.js";
import { createBashTool } from "../../src/tools/shell/bash-tool.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

const code = (result: ToolCallResult) => (result.ok ? "ok" : result.error.code);
const text = (result: ToolCallResult) => (result.ok ? String(result.output) : `error:${result.error.code}`);

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 31, names at the kernel's limits"), () => {
  let workspace: string;
  let run: Run;
  beforeEach(() => {
    workspace = realpathSync(mkdtempSync(path.join(tmpdir(), "atc-r31-names-")));
    run = createRegistry({ tools: [...createFileTools(), createBashTool()] }).createRun({
      profile: "full",
      permissions: { sandbox: "workspace", workspace },
    });
  });
  afterEach(() => {
    // GNU rm walks a tree deeper than PATH_MAX relative to each directory; fs.rm takes whole paths.
    execFileSync("rm", ["-rf", workspace]);
  });

  /** Every way to make, change and read `name` (in `dir/`), each answer's code. */
  async function everyTool(name: string): Promise<Record<string, string>> {
    const patch = (lines: string) => run.call("apply_patch", { patch: `*** Begin Patch\n${lines}\n*** End Patch` });
    return {
      write: code(await run.call("write", { path: `dir/${name}`, content: "one\n" })),
      edit: code(await run.call("edit", { path: `dir/${name}`, old_text: "one", new_text: "two" })),
      replace: code(await run.call("replace", { path: `dir/${name}`, find: "two", replace: "three" })),
      read: code(await run.call("read", { path: `dir/${name}` })),
      file_inspect: code(await run.call("file_inspect", { path: `dir/${name}` })),
      patchUpdate: code(await patch(`*** Update File: dir/${name}\n@@\n-three\n+four`)),
      patchMove: code(await patch(`*** Update File: dir/${name}\n*** Move to: moved/${name}\n@@\n-four\n+five`)),
      patchAdd: code(await patch(`*** Add File: added/${name}\n+six`)),
      undo: code(await run.call("undo", { path: `added/${name}` })),
    };
  }

  escapeAttempt(
    "resources",
    "names of 255 and 256 bytes (ASCII and 3-byte characters) in write, edit, replace, read, file_inspect, apply_patch, undo",
    async () => {
      for (const name of ["a".repeat(255), "\u20ac".repeat(85)]) {
        expect(Buffer.byteLength(name)).toBe(255);
        const codes = await everyTool(name);
        // Control: at the limit every tool works and the file holds what the last change made.
        expect(
          Object.values(codes).filter((answer) => answer !== "ok"),
          JSON.stringify(codes),
        ).toEqual([]);
        expect(readFileSync(path.join(workspace, "moved", name), "utf8")).toBe("five\n");
        // The undo took the added file and the directory it made with it.
        expect(existsSync(path.join(workspace, "added"))).toBe(false);
        // No temporary file, lock or backup is left beside any of them.
        for (const dir of ["dir", "moved"]) {
          expect(
            readdirSync(path.join(workspace, dir)).filter((entry) => entry !== name),
            dir,
          ).toEqual([]);
        }
        execFileSync("rm", ["-rf", path.join(workspace, "dir"), path.join(workspace, "moved"), path.join(workspace, "added")]);
      }
      for (const name of ["a".repeat(256), "\u20ac".repeat(86)]) {
        const codes = await everyTool(name);
        // The makers say why; the others find nothing to change (its directory was never made).
        expect(codes, JSON.stringify(codes)).toMatchObject({ write: "name_too_long", patchAdd: "name_too_long" });
        expect(
          Object.values(codes).filter((answer) => answer === "ok"),
          JSON.stringify(codes),
        ).toEqual([]);
        expect(readdirSync(workspace)).toEqual([]);
      }
    },
    60_000,
  );

  escapeAttempt(
    "resources",
    "a tree 6,000 bytes deep made by a sandboxed command: listed, globbed, grepped, its deepest file reached",
    async () => {
      const component = "d".repeat(200);
      const made = await sh(
        run,
        `for i in $(seq 30); do mkdir ${component} && cd ${component} || exit 1; done; echo deep-needle > f.txt; pwd | wc -c`,
      );
      expect(Number(made.stdout.trim())).toBeGreaterThan(6_000);
      const deep = `${Array.from({ length: 30 }, () => component).join("/")}/f.txt`;
      const answers = {
        ls: code(await run.call("ls", { path: "." })),
        glob: text(await run.call("glob", { pattern: "**/*.txt" })),
        grep: text(await run.call("grep", { pattern: "deep-needle" })),
        read: code(await run.call("read", { path: deep })),
        write: code(await run.call("write", { path: deep, content: "overwritten\n" })),
        bash: (
          await sh(
            run,
            `cd ${Array.from({ length: 15 }, () => component).join("/")} && cat ${deep.split("/").slice(15).join("/")}`,
          )
        ).stdout,
      };
      // Each answers (no throw): the whole path is too long for the kernel, the walk is not.
      expect(answers).toMatchObject({ ls: "ok", read: "name_too_long", write: "name_too_long" });
      // The searches cannot reach the deepest directories by path, and say so: no answer claims the
      // tree holds no such file while it does.
      expect(answers.glob).toMatch(/not read: .*ENAMETOOLONG/);
      expect(answers.grep).toMatch(/not searched: .*file name too long/);
      // Control: the file is there and unchanged, as a command reaching it relative to a directory shows.
      expect(answers.bash).toContain("deep-needle");
    },
    120_000,
  );
});
