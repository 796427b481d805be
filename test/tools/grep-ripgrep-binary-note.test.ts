/**
 * ripgrep prints a note without a NUL when it stops in a binary file after a match
 * (`a.bin: WARNING: stopped searching binary file after match (found "\0" byte around offset N)`).
 * grep joined such a line to the next one when a file named `<that line>⏎b` existed, so a match in
 * `b` was printed under that name. The note is now known for what it is (its path is the last one
 * printed), not guessed from which files exist; a name that starts with the very note cannot be
 * told apart from it, and then the JavaScript engine answers. Compared with `rg`.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");

describe.skipIf(ripgrep.missing)(ripgrep.label("grep and ripgrep's note about a binary file"), () => {
  let base: string;
  let counter = 0;
  beforeAll(async () => {
    base = await mkdtemp(path.join(tmpdir(), "atc-grep-binary-note-"));
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  /** A workspace with `a.bin` (a match, then a NUL past ripgrep's first block) and `b`; the note rg prints. */
  async function workspace(): Promise<{ root: string; note: string }> {
    const root = await mkdtemp(path.join(base, `w${++counter}-`));
    await writeFile(
      path.join(root, "a.bin"),
      Buffer.concat([Buffer.from(`hello\n${"x\n".repeat(150_000)}`), Buffer.from([0]), Buffer.from("hello\n")]),
    );
    await writeFile(path.join(root, "b"), "hello\n");
    const printed = execFileSync("rg", ["--no-config", "--null", "--line-number", "--with-filename", "--no-heading", "hello"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    const note = printed.split("\n").find((line) => line.includes("WARNING"));
    expect(note).toMatch(/^a\.bin: WARNING: stopped searching binary file after match \(found "\\0" byte around offset \d+\)$/);
    return { root, note: note as string };
  }

  async function grep(root: string, engine: "auto" | "ripgrep") {
    const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
      profile: "full",
      permissions: { workspace: root, sandbox: "unrestricted" },
    });
    const result = await run.call("grep", { pattern: "hello" });
    expect(result.ok, JSON.stringify(result)).toBe(true);
    return String(result.ok ? result.output : "");
  }

  it("a file named `<note>⏎b` beside them: b's match is printed under b, as rg prints it (either engine answers)", async () => {
    const { root, note } = await workspace();
    await writeFile(path.join(root, `${note}\nb`), "nothing\n");
    const rg = execFileSync("rg", ["--no-config", "--line-number", "--with-filename", "--no-heading", "hello"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(rg.split("\n")).toContain("b:1:hello");
    for (const engine of ["auto", "ripgrep"] as const) {
      const output = await grep(root, engine);
      const lines = output.split("\n");
      expect(lines).toContain("a.bin:1:hello");
      expect(lines).toContain("b:1:hello");
      expect(output.replace(/\[engine: [^\]]*\]$/, "")).not.toContain("WARNING");
      // ripgrep's unsorted run prints files in any order: when the note comes right before the
      // name that starts with it, its output cannot tell them apart and the JavaScript engine answers.
      expect(output).toMatch(/\[engine: (?:ripgrep, sandbox [^;\]]+|javascript worker \(ripgrep's output is ambiguous[^\]]*)\]$/);
    }
  });

  it("control: without such a file, the note is dropped and ripgrep answers", async () => {
    const { root } = await workspace();
    const output = await grep(root, "ripgrep");
    expect(output.split("\n")).toContain("b:1:hello");
    expect(output).not.toContain("WARNING");
    expect(output).toMatch(/\[engine: ripgrep, sandbox [^;\]]+\]$/);
  });

  it("a file named `<note>⏎b` holding a match too: both files named, by whichever engine answers", async () => {
    const { root, note } = await workspace();
    await writeFile(path.join(root, `${note}\nb`), "hello\n");
    for (const engine of ["auto", "ripgrep"] as const) {
      const output = await grep(root, engine);
      const lines = output.split("\n");
      expect(lines).toContain("b:1:hello");
      expect(lines).toContain(`${JSON.stringify(`${note}\nb`)}:1:hello`);
      expect(output).toMatch(/\[engine: (?:ripgrep, sandbox [^;\]]+|javascript worker \(ripgrep's output is ambiguous[^\]]*)\]$/);
    }
  });
});
