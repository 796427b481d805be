/**
 * Spec conformance, variants round 6 (/work/shared/spec/tool-profiles-and-loading.md "The core
 * tool set": ls, agentgrep; the built-ins outside the eighteen: glob; agent-tool-catalog.md "Core
 * tools": write, edit, apply_patch `expected_version`): the spec read as an outside tester would,
 * each parameter at its edges (a missing start, a file, a link, a named pipe, an invalid pattern,
 * the order and cut of a result, `v_absent` on either side of a version check). Through the
 * package entries as a user imports them; each area once more from CommonJS through the built
 * package (`npm run build` first). Statement table: docs/spec-conformance.md.
 */
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRegistry } from "agent-tool-catalog";
import { createFileTools, createGrepTool } from "agent-tool-catalog/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelError, ok, okText, runCommonJs } from "./support.js";

let base: string;
let outside: string;
beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), "atc-listing-variants-"));
  outside = await mkdtemp(path.join(tmpdir(), "atc-listing-outside-"));
  await mkdir(path.join(base, "a/z"), { recursive: true });
  await mkdir(path.join(base, "b"), { recursive: true });
  await writeFile(path.join(base, "a/z/1.ts"), "one\n");
  await writeFile(path.join(base, "a/2.ts"), "two\n");
  await writeFile(path.join(base, "b/1.ts"), "three\n");
  await writeFile(path.join(base, "top.ts"), "four\n");
  await writeFile(path.join(base, "file.txt"), "text\n");
  await writeFile(path.join(outside, "secret.ts"), "secret\n");
  await symlink("a", path.join(base, "link-to-a"));
  await symlink("missing-target", path.join(base, "dangling"));
  await symlink(outside, path.join(base, "link-out"));
  execFileSync("mkfifo", [path.join(base, "pipe")]);
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

const fullRun = (sandbox: "unrestricted" | "workspace" = "unrestricted") =>
  createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { workspace: base, sandbox } });

describe("glob's path is the directory searched: a start that is not one is said to be so, as ls says it", () => {
  it("a missing directory is file_not_found (it was 'No files match', read as an empty directory)", async () => {
    const run = fullRun();
    for (const tool of ["glob", "ls"]) {
      const args = tool === "glob" ? { pattern: "*", path: "nowhere" } : { path: "nowhere" };
      const error = modelError(await run.call(tool, args), "file_not_found");
      expect(error.message, tool).toBe('No directory at "nowhere".');
    }
  });

  it("a file is not_a_directory, with the tools that take a file", async () => {
    const run = fullRun();
    for (const tool of ["glob", "ls"]) {
      const args = tool === "glob" ? { pattern: "*", path: "file.txt" } : { path: "file.txt" };
      const error = modelError(await run.call(tool, args), "not_a_directory");
      expect([error.message, error.hint], tool).toEqual(['"file.txt" is a file.', "Use read or file_inspect."]);
    }
  });

  it("a named pipe is named as one (the special-file wording of every tool), never opened", async () => {
    const run = fullRun();
    for (const tool of ["glob", "ls"]) {
      const args = tool === "glob" ? { pattern: "*", path: "pipe" } : { path: "pipe" };
      const error = modelError(await run.call(tool, args), "not_a_directory");
      expect(error.message, tool).toBe('"pipe" is a named pipe (FIFO).');
    }
  });

  it("a link to nothing is file_not_found", async () => {
    const run = fullRun();
    modelError(await run.call("glob", { pattern: "*", path: "dangling" }), "file_not_found");
    modelError(await run.call("ls", { path: "dangling" }), "file_not_found");
  });

  it('positive controls: a directory, the root as "" or ".", and a link to a directory are searched', async () => {
    const run = fullRun();
    expect(okText(await run.call("glob", { pattern: "*.ts", path: "a" }))).toBe(
      '2 files match "*.ts" under "a"\na/2.ts\na/z/1.ts',
    );
    for (const root of ["", "."]) {
      expect(okText(await run.call("glob", { pattern: "top.ts", path: root }))).toBe('1 file matches "top.ts" under "."\ntop.ts');
    }
    expect(okText(await run.call("glob", { pattern: "*.ts", path: "link-to-a" }))).toBe(
      '2 files match "*.ts" under "link-to-a"\nlink-to-a/2.ts\nlink-to-a/z/1.ts',
    );
  });

  it('ls of a link to a directory lists the directory, as grep and glob search it (it said "is a file")', async () => {
    const listing = okText(await fullRun().call("ls", { path: "link-to-a" })).split("\n");
    expect(listing.slice(1)).toEqual(["2.ts  4", "z/"]);
    expect(listing[0]).toMatch(/: 2 entries$/);
  });

  it("under the workspace sandbox a link out of the workspace is refused for ls and glob alike, saying nothing of the target", async () => {
    const run = fullRun("workspace");
    for (const [tool, args] of [
      ["ls", { path: "link-out" }],
      ["glob", { pattern: "*", path: "link-out" }],
    ] as const) {
      const result = await run.call(tool, args);
      expect(result.ok, tool).toBe(false);
      expect(JSON.stringify(result), tool).not.toContain("secret");
      expect(JSON.stringify(result), tool).not.toContain(outside);
    }
    // Control: unrestricted, the same link is listed.
    expect(okText(await fullRun().call("ls", { path: "link-out" }))).toContain("secret.ts");
  });
});

describe("glob's order and cut (spec silent; decided: breadth-first, each directory in byte order)", () => {
  it("shallower paths come first, each directory's entries in byte order", async () => {
    expect(
      okText(await fullRun().call("glob", { pattern: "**/*.ts" }))
        .split("\n")
        .slice(1),
    ).toEqual(["top.ts", "a/2.ts", "b/1.ts", "a/z/1.ts"]);
  });

  it("max_results keeps the first in that order and says it was cut; exactly as many as match is not cut", async () => {
    const run = fullRun();
    expect(okText(await run.call("glob", { pattern: "**/*.ts", max_results: 2 }))).toBe(
      '2 files match "**/*.ts" under "." (first 2; narrow the pattern or raise max_results)\ntop.ts\na/2.ts',
    );
    expect(okText(await run.call("glob", { pattern: "**/*.ts", max_results: 4 }))).toBe(
      '4 files match "**/*.ts" under "."\ntop.ts\na/2.ts\nb/1.ts\na/z/1.ts',
    );
  });
});

describe("grep's invalid pattern says the pattern as written and why, once (agentgrep: a regular expression)", () => {
  for (const engine of ["ripgrep", "javascript"] as const) {
    it(`${engine}: no doubled prefix and no /.../u form the model never wrote`, async () => {
      const run = createRegistry({ tools: [createGrepTool({ engine })] }).createRun({ permissions: { workspace: base } });
      // Old code: 'Invalid regular expression: Invalid regular expression: /(/u: Unterminated group'.
      expect(modelError(await run.call("grep", { pattern: "(" }), "invalid_pattern").message).toBe(
        'Invalid regular expression "(": Unterminated group.',
      );
      expect(modelError(await run.call("grep", { pattern: "a/b[" }), "invalid_pattern").message).toBe(
        'Invalid regular expression "a/b[": Unterminated character class.',
      );
      // Positive controls: the same characters as a group that closes, and as fixed strings.
      const found = okText(await run.call("grep", { pattern: "(one|two)" })).split("\n");
      expect(found).toEqual(expect.arrayContaining(["a/2.ts:1:two", "a/z/1.ts:1:one"]));
      expect(okText(await run.call("grep", { pattern: "(", fixed_strings: true }))).toMatch(/^No matches for "\("\./);
    });
  }
});

describe('expected_version v_absent on either side is said in words (write: "v_absent": must not exist)', () => {
  const versionOf = (text: string) => /v_[0-9a-f]{16}/.exec(text)?.[0] ?? "";

  it("write v_absent over an existing file: it already exists, and is left as it was", async () => {
    const run = fullRun();
    await writeFile(path.join(base, "kept.txt"), "kept\n");
    const version = versionOf(okText(await run.call("read", { path: "kept.txt" })));
    const error = modelError(
      await run.call("write", { path: "kept.txt", content: "new", expected_version: "v_absent" }),
      "version_conflict",
    );
    // Old code: '"kept.txt" is at v_..., not v_absent: it changed since you read it. Nothing was written.'
    expect(error.message).toBe(`"kept.txt" already exists (at ${version}); v_absent means it must not. Nothing was written.`);
    expect(error.hint).toBe("Read it and pass its version to change it, or use another path.");
    expect(await readFile(path.join(base, "kept.txt"), "utf8")).toBe("kept\n");
  });

  it("a version of a file that is gone: it does not exist, for write, edit, replace and apply_patch; nothing is created", async () => {
    const run = fullRun();
    const stale = "v_0123456789abcdef";
    const calls: [string, Record<string, unknown>, string][] = [
      ["write", { path: "gone.txt", content: "x", expected_version: stale }, "Nothing was written."],
      ["edit", { path: "gone.txt", old_text: "a", new_text: "b", expected_version: stale }, "Nothing was changed."],
      ["replace", { path: "gone.txt", find: "a", replace: "b", expected_version: stale }, "Nothing was changed."],
      ["apply_patch", { path: "gone.txt", find: "a", replace: "b", expected_version: stale }, "Nothing was changed."],
    ];
    for (const [tool, args, outcome] of calls) {
      const error = modelError(await run.call(tool, args), "version_conflict");
      // Old code: '"gone.txt" is at v_absent, not v_0123...: it changed since you read it.'
      expect(error.message, tool).toBe(
        `"gone.txt" does not exist (v_absent), not at ${stale}: it was removed or moved since you read it. ${outcome}`,
      );
    }
    await expect(stat(path.join(base, "gone.txt"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a stale version of an existing file: the same sentence in every tool (apply_patch's lacked the reason)", async () => {
    const run = fullRun();
    await writeFile(path.join(base, "moving.txt"), "a\n");
    const version = versionOf(okText(await run.call("read", { path: "moving.txt" })));
    const stale = "v_0123456789abcdef";
    for (const [tool, args] of [
      ["write", { path: "moving.txt", content: "x", expected_version: stale }],
      ["edit", { path: "moving.txt", old_text: "a", new_text: "b", expected_version: stale }],
      ["apply_patch", { path: "moving.txt", find: "a", replace: "b", expected_version: stale }],
    ] as const) {
      const error = modelError(await run.call(tool, args), "version_conflict");
      expect(error.message, tool).toMatch(
        new RegExp(
          `^"moving\\.txt" is at ${version}, not ${stale}: it changed since you read it\\. Nothing was (written|changed)\\.$`,
        ),
      );
    }
    expect(await readFile(path.join(base, "moving.txt"), "utf8")).toBe("a\n");
  });

  it("positive controls: v_absent creates a missing file; the current version writes", async () => {
    const run = fullRun();
    const created = okText(await run.call("write", { path: "fresh.txt", content: "one", expected_version: "v_absent" }));
    expect(created).toMatch(/^Created fresh\.txt \(3 bytes\)/);
    const replaced = ok(await run.call("write", { path: "fresh.txt", content: "two", expected_version: versionOf(created) }));
    expect(String(replaced)).toMatch(/^Wrote fresh\.txt \(3 bytes\)/);
    expect(await readFile(path.join(base, "fresh.txt"), "utf8")).toBe("two");
  });
});

describe("from CommonJS", () => {
  it("glob of a missing directory, grep's invalid pattern and write's v_absent say the same", () => {
    const result = runCommonJs(`
      const { createRegistry } = require("agent-tool-catalog");
      const { createFileTools } = require("agent-tool-catalog/tools");
      (async () => {
        const run = createRegistry({ tools: createFileTools() }).createRun({ profile: "full", permissions: { workspace: ${JSON.stringify(base)} } });
        const out = [];
        for (const [tool, args] of [["glob", { pattern: "*", path: "nowhere" }], ["glob", { pattern: "*", path: "file.txt" }], ["grep", { pattern: "(" }], ["write", { path: "file.txt", content: "x", expected_version: "v_absent" }]]) {
          const result = await run.call(tool, args);
          out.push(result.ok ? result.output : [result.error.code, result.error.message]);
        }
        console.log(JSON.stringify(out));
      })();
    `);
    expect(result).toEqual([
      ["file_not_found", 'No directory at "nowhere".'],
      ["not_a_directory", '"file.txt" is a file.'],
      ["invalid_pattern", 'Invalid regular expression "(": Unterminated group.'],
      [
        "version_conflict",
        expect.stringMatching(
          /^"file\.txt" already exists \(at v_[0-9a-f]{16}\); v_absent means it must not\. Nothing was written\.$/,
        ),
      ],
    ]);
  });
});
