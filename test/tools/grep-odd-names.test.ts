/**
 * File names that could pass for grep's own lines: a line break (ripgrep prints the name as it
 * is, ended by NUL; grep split its output at the line break first and named the wrong file, and a
 * name ending in an error message's tail added a fake `[not searched: ...]` line), a tab, a
 * leading `-`, a `:`, bytes that are not UTF-8. Both engines print every match, the same lines
 * (a name with a control character as a JSON string), and the files `rg` itself finds.
 */
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";

const ripgrep = capability("ripgrep");
const bubblewrap = capability("bubblewrap");

const FAKE_TAIL = "foo: Permission denied (os error 13)";
const NAMES = [
  "a\nb.txt",
  "ta\tb.txt",
  "-lead.txt",
  "co:lon.txt",
  "1:2.txt",
  "\nstart.txt",
  "end\n",
  `x\n${FAKE_TAIL}`,
  "plain.txt",
];

async function grep(workspace: string, engine: "ripgrep" | "javascript", sandbox: "workspace" | "unrestricted" = "unrestricted") {
  const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({
    profile: "full",
    permissions: { workspace, sandbox },
  });
  const result = await run.call("grep", { pattern: "needle" });
  expect(result.ok, JSON.stringify(result)).toBe(true);
  return String(result.ok ? result.output : "");
}

describe.skipIf(ripgrep.missing)(ripgrep.label("grep on file names holding line breaks, tabs, - and :"), () => {
  let workspace: string;
  beforeAll(async () => {
    workspace = await mkdtemp(path.join(tmpdir(), "atc-grep-odd-names-"));
    for (const name of NAMES) await writeFile(path.join(workspace, name), "needle\n");
  });
  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it("rg itself finds every one of them", () => {
    const printed = execFileSync("rg", ["--no-config", "--files-with-matches", "--null", "needle"], {
      cwd: workspace,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(printed.split("\0").filter(Boolean).sort()).toEqual([...NAMES].sort());
  });

  for (const engine of ["ripgrep", "javascript"] as const) {
    it(`${engine}: every match under its own name, no fake lines`, async () => {
      const output = await grep(workspace, engine);
      const lines = output.split("\n").slice(0, -1);
      const expected = NAMES.map((name) => `${/[\n\t]/.test(name) ? JSON.stringify(name) : name}:1:needle`);
      expect([...lines].sort()).toEqual([...expected].sort());
      expect(output).not.toContain("not searched");
    });
  }

  it.skipIf(bubblewrap.missing)("an unreadable file named with an error message's tail is named once, as it is", async () => {
    const locked = await mkdtemp(path.join(tmpdir(), "atc-grep-odd-locked-"));
    try {
      await writeFile(path.join(locked, `x\n${FAKE_TAIL}`), "needle\n");
      await writeFile(path.join(locked, "open.txt"), "needle\n");
      // ripgrep runs as uid 65534 inside the sandbox: a root-owned mode-000 file is unreadable to it.
      await chmod(path.join(locked, `x\n${FAKE_TAIL}`), 0o000);
      const output = await grep(locked, "ripgrep", "workspace");
      expect(output).toContain("open.txt:1:needle");
      expect(output).toContain(`[not searched: ${JSON.stringify(`x\n${FAKE_TAIL}`)} (permission denied)]`);
      expect(output.match(/not searched/g)).toHaveLength(1);
    } finally {
      await rm(locked, { recursive: true, force: true });
    }
  });

  it("a name that is not UTF-8 is named as not reachable by both engines, never as its U+FFFD twin", async () => {
    const odd = await mkdtemp(path.join(tmpdir(), "atc-grep-odd-bytes-"));
    try {
      await writeFile(Buffer.concat([Buffer.from(`${odd}/c`), Buffer.from([0xff]), Buffer.from(".txt")]), "needle bytes\n");
      await mkdir(Buffer.concat([Buffer.from(`${odd}/d`), Buffer.from([0xfe])]));
      await writeFile(Buffer.concat([Buffer.from(`${odd}/d`), Buffer.from([0xfe]), Buffer.from("/in.txt")]), "needle inside\n");
      const note = "[not searched: c\uFFFD.txt (not reachable by name: its name is not valid UTF-8;";
      for (const engine of ["ripgrep", "javascript"] as const) {
        const alone = await grep(odd, engine);
        expect(alone, engine).toContain(note);
        expect(alone, engine).not.toContain("needle bytes");
        expect(alone, engine).not.toContain("needle inside");
      }
      // Its twin, truly named with U+FFFD, beside it: its own lines under its name, once; the other still a note.
      await writeFile(path.join(odd, "c\uFFFD.txt"), "needle twin\n");
      for (const engine of ["ripgrep", "javascript"] as const) {
        const both = await grep(odd, engine);
        expect(
          both.split("\n").filter((line) => line.startsWith("c\uFFFD.txt:")),
          engine,
        ).toEqual(["c\uFFFD.txt:1:needle twin"]);
        expect(both, engine).toContain(note);
        expect(both, engine).not.toContain("needle bytes");
      }
      const filesOnly = await createRegistry({ tools: [createGrepTool({ engine: "ripgrep" })] })
        .createRun({ profile: "full", permissions: { workspace: odd, sandbox: "unrestricted" } })
        .call("grep", { pattern: "needle bytes", files_only: true });
      expect(String(filesOnly.ok ? filesOnly.output : "")).toContain(note);
    } finally {
      await rm(odd, { recursive: true, force: true });
    }
  });
});
