/**
 * Symbolic links and the two grep engines, against the real `rg`. ripgrep follows a link given as
 * its path argument (a file, a directory, a chain of links) and does not follow links it meets in
 * the tree it walks (no `-L`). The JavaScript engine `lstat`ed a file named as the path and, seeing
 * a link, answered "No matches" where ripgrep searched the file it leads to; with `engine: "auto"`
 * (which takes the JavaScript engine for a file, and whenever the run's processes are busy) the
 * same call gave either answer. Every shape is run on both engines and compared with `rg`.
 *
 * Confined (`sandbox: "workspace"`), a path is resolved to its real place before either engine
 * runs, so both name the file where it is (`real/a.txt` for `flink`), not by the link as `rg`
 * does: there the lines (number and text) are compared with `rg`'s, and the engines with each
 * other exactly. A link leading out of the workspace is refused by both (`symlink_escape`); the
 * positive control is a link to the same bytes inside the workspace, which both search.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGlobTool, createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");
/** A dozen grep calls (a 6 MB file among them) each, on a shared 2-core machine at load 30. */
const SLOW = 120_000;

/** rg's answer for `path` from the workspace: its lines (`./` dropped), or its error. */
function rg(workspace: string, where: string): { lines: string[] } | { error: string } {
  try {
    const output = execFileSync("rg", ["--no-config", "--sort", "path", "-n", "--with-filename", "needle", where], {
      cwd: workspace,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return {
      lines: output
        .split("\n")
        .filter(Boolean)
        .map((line) => line.replace(/^\.\//, "")),
    };
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    if (failed.status === 1) return { lines: [] };
    return { error: failed.stderr };
  }
}

type Sandbox = "unrestricted" | "workspace";
type Engine = "javascript" | "ripgrep" | "auto";

async function grep(
  workspace: string,
  sandbox: Sandbox,
  engine: Engine,
  where: string,
): Promise<{ lines: string[] } | { code: string }> {
  const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
    profile: "full",
    permissions: { workspace, sandbox },
  });
  const result = await run.call("grep", { pattern: "needle", path: where });
  if (!result.ok) return { code: result.error.code };
  const lines = String(result.output)
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("[") && !line.startsWith("No matches"));
  return { lines };
}

/** `name:1:text` without its name: what the confined engines must share with `rg`. */
const withoutName = (lines: readonly string[]) => lines.map((line) => line.slice(line.indexOf(":")));

describe.skipIf(ripgrep.missing)(ripgrep.label("grep: symbolic links as the path and in the tree, both engines vs rg"), () => {
  let base: string;
  let workspace: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-symlink-paths-"));
    workspace = path.join(base, "ws");
    const outside = path.join(base, "outside");
    await mkdir(path.join(workspace, "real", "sub"), { recursive: true });
    await mkdir(path.join(workspace, "tree"));
    await mkdir(outside);
    await writeFile(path.join(workspace, "real", "a.txt"), "needle a\n");
    await writeFile(path.join(workspace, "real", "sub", "b.txt"), "needle b\n");
    await writeFile(path.join(workspace, "tree", "t.txt"), "needle t\n");
    await writeFile(path.join(outside, "o.txt"), "needle out\n");
    await writeFile(path.join(workspace, "real", "o.txt"), "needle out\n");
    await mkdir(path.join(workspace, "big"));
    await writeFile(path.join(workspace, "big", "big.txt"), `${"filler line\n".repeat(500_000)}needle big\n`);
    await symlink("big/big.txt", path.join(workspace, "big-link"));
    await symlink("real/a.txt", path.join(workspace, "flink"));
    await symlink("real", path.join(workspace, "dlink"));
    await symlink("flink", path.join(workspace, "fchain"));
    await symlink("dlink", path.join(workspace, "dchain"));
    await symlink("nothing-here", path.join(workspace, "broken"));
    // Links inside a walked tree: rg (no -L) does not follow them.
    await symlink("../real/a.txt", path.join(workspace, "tree", "fl"));
    await symlink("../real", path.join(workspace, "tree", "dl"));
    // Out of the workspace, and the same bytes reached inside it (the positive control).
    await symlink(path.join(outside, "o.txt"), path.join(workspace, "out-file"));
    await symlink(outside, path.join(workspace, "out-dir"));
    await symlink("real/o.txt", path.join(workspace, "in-file"));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  // [path, what it is]: each compared with rg on both engines.
  const shapes: readonly [string, string][] = [
    ["flink", "a file link as the path"],
    ["dlink", "a directory link as the path"],
    ["fchain", "a chain of links to a file"],
    ["dchain", "a chain of links to a directory"],
    ["dlink/sub", "a directory below a directory link"],
    ["tree", "a tree holding a file link and a directory link (not followed)"],
    [".", "the workspace, links at its top (not followed)"],
    ["tree/dl", "a directory link inside the tree, given as the path"],
    ["tree/fl", "a file link inside the tree, given as the path"],
    ["big-link", "a link to a file over the JavaScript engine's 4 MiB piece (searched in pieces)"],
    ["in-file", "a link to the outside file's bytes inside the workspace"],
    ["out-file", "a file link out of the workspace"],
    ["out-dir", "a directory link out of the workspace"],
  ];
  const engines = ["javascript", "ripgrep"] as const;

  // "auto" takes the JavaScript engine for a file (and when the run's processes are busy).
  for (const engine of [...engines, "auto"] as const) {
    it(
      `unrestricted, engine ${engine}: rg's answer for every link shape`,
      async () => {
        const expected: Record<string, unknown> = {};
        const actual: Record<string, unknown> = {};
        for (const [where, what] of shapes) {
          expected[`${where}: ${what}`] = rg(workspace, where);
          actual[`${where}: ${what}`] = await grep(workspace, "unrestricted", engine, where);
        }
        for (const [shape, answer] of Object.entries(expected)) {
          expect("lines" in (answer as object) && (answer as { lines: string[] }).lines.length > 0, `rg finds ${shape}`).toBe(
            true,
          );
        }
        // One table: a failure shows every shape that differs.
        expect(actual).toEqual(expected);
      },
      SLOW,
    );

    it(`unrestricted, engine ${engine}: a broken link is file_not_found, as rg fails on it`, async () => {
      expect(rg(workspace, "broken")).toEqual({ error: expect.stringContaining("No such file or directory") });
      expect(await grep(workspace, "unrestricted", engine, "broken")).toEqual({ code: "file_not_found" });
    });
  }

  it.skipIf(bubblewrap.missing)(
    bubblewrap.label("workspace: both engines agree with each other and with rg's lines"),
    async () => {
      for (const [where, what] of shapes.filter(([where]) => !where.startsWith("out-"))) {
        const expected = rg(workspace, where);
        const javascript = await grep(workspace, "workspace", "javascript", where);
        const ripgrepEngine = await grep(workspace, "workspace", "ripgrep", where);
        expect(javascript, `${where}: ${what}`).toEqual(ripgrepEngine);
        expect("lines" in javascript && "lines" in expected, where).toBe(true);
        if (!("lines" in javascript) || !("lines" in expected)) continue;
        expect(withoutName(javascript.lines), `${where}: ${what}`).toEqual(withoutName(expected.lines));
        expect(javascript.lines.length, where).toBeGreaterThan(0);
      }
    },
    SLOW,
  );

  for (const engine of engines) {
    const title = `workspace, engine ${engine}: a link out is refused, the same bytes inside are searched`;
    it.skipIf(engine === "ripgrep" && bubblewrap.missing)(engine === "ripgrep" ? bubblewrap.label(title) : title, async () => {
      expect(await grep(workspace, "workspace", engine, "out-file")).toEqual({ code: "symlink_escape" });
      expect(await grep(workspace, "workspace", engine, "out-dir")).toEqual({ code: "symlink_escape" });
      expect(await grep(workspace, "workspace", engine, "in-file")).toEqual({ lines: ["real/o.txt:1:needle out"] });
      expect(await grep(workspace, "workspace", engine, "broken")).toEqual({ code: "dangling_symlink_refused" });
    });
  }

  it("glob: a file link as the path is not_a_directory like the file, a directory link is followed (README)", async () => {
    for (const sandbox of ["unrestricted", "workspace"] as const) {
      const run = createRegistry({ tools: [createGlobTool()] }).createRun({
        profile: "full",
        permissions: { workspace, sandbox },
      });
      const glob = async (where: string) => {
        const result = await run.call("glob", { pattern: "**/*.txt", path: where });
        return result.ok ? String(result.output).split("\n").slice(1) : result.error.code;
      };
      expect(await glob("flink"), sandbox).toBe("not_a_directory");
      expect(await glob("real/a.txt"), sandbox).toBe("not_a_directory");
      const shown = sandbox === "workspace" ? "real" : "dlink";
      expect(await glob("dlink"), sandbox).toEqual([`${shown}/a.txt`, `${shown}/o.txt`, `${shown}/sub/b.txt`]);
      expect(await glob("broken"), sandbox).toBe(sandbox === "workspace" ? "dangling_symlink_refused" : "file_not_found");
      expect(await glob("out-dir"), sandbox).toEqual(sandbox === "workspace" ? "symlink_escape" : ["out-dir/o.txt"]);
    }
  });
});
