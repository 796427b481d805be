/**
 * The ignore files both engines apply: ripgrep reads `.rgignore` (over `.ignore` over
 * `.gitignore`) and, with `--no-require-git`, the `.git/info/exclude` of every directory it
 * enters; the JavaScript engine read neither `.rgignore` nor a nested exclude file, so the two
 * engines (and `rg` itself) answered differently on the same tree. Control: the `rg` CLI's own
 * answer with grep's flags.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe.skipIf(ripgrep.missing)(ripgrep.label("both grep engines apply the ignore files rg applies"), () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-ignore-precedence-"));
    const files: Record<string, string> = {
      "a.txt": "needle\n",
      "b.txt": "needle\n",
      "f.txt": "needle\n",
      "sub/c.txt": "needle\n",
      "sub/d.txt": "needle\n",
      "sub/e.txt": "needle\n",
      ".rgignore": "a.txt\n",
      // .rgignore wins over .ignore wins over .gitignore, in the same directory.
      ".ignore": "f.txt\n",
      ".gitignore": "!f.txt\nb.txt\n",
      "sub/.rgignore": "!b.txt\n",
      "sub/.git/info/exclude": "c.txt\n",
    };
    for (const [name, text] of Object.entries(files)) {
      await mkdir(path.dirname(path.join(workspace, name)), { recursive: true });
      await writeFile(path.join(workspace, name), text);
    }
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("rg, the ripgrep engine and the JavaScript engine name the same files", async () => {
    const printed = execFileSync(
      "rg",
      [
        "--no-config",
        "--hidden",
        "--no-require-git",
        "--no-ignore-global",
        "--no-ignore-parent",
        "--glob",
        "!.git",
        "-l",
        "needle",
      ],
      { cwd: workspace, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    const expected = printed.trim().split("\n").sort();
    expect(expected).toEqual(["sub/d.txt", "sub/e.txt"]);
    for (const engine of ["ripgrep", "javascript"] as const) {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox: "unrestricted" },
      });
      for (const start of [undefined, "sub"]) {
        const result = await run.call("grep", {
          pattern: "needle",
          files_only: true,
          ...(start === undefined ? {} : { path: start }),
        });
        expect(result.ok).toBe(true);
        expect(
          String(result.ok && result.output)
            .split("\n")
            .slice(0, -1)
            .sort(),
          `${engine} ${start}`,
        ).toEqual(expected);
      }
    }
  });
});
