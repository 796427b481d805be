/**
 * Escape attempts through names bwrap could not be given, or the mount check could misread: a
 * repository under a directory whose name is not valid UTF-8 (Node decodes it with U+FFFD, and
 * process arguments are strings), or whose name holds a newline, a backslash, a space or the
 * four characters `\040` (the kernel's mount table writes the last three as octal escapes).
 * Until stop 43 the first made every command of the workspace refused ("undecodable_name"), and a
 * command could cause that itself by making such a repository, which nothing in the run could
 * rename. Now the mounts reach bwrap as bytes (`--args`) and each such repository is protected as
 * a UTF-8 named one: its config and hooks are read-only. Controls: the work tree beside them is
 * written, and under scope `local` the plant goes through.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** Directory names as bytes, and as a bash `printf` format that makes them. */
const NAMES = {
  "not valid UTF-8": { bytes: Buffer.from([0x76, 0xff]), printf: "v\\377" },
  "its U+FFFD twin (valid UTF-8, beside it)": { bytes: Buffer.from([0x76, 0xef, 0xbf, 0xbd]), printf: "v\\357\\277\\275" },
  "a newline": { bytes: Buffer.from("a\nb"), printf: "a\\nb" },
  "a backslash": { bytes: Buffer.from("back\\slash"), printf: "back\\\\slash" },
  "the characters \\040 and a space": { bytes: Buffer.from("oct\\040al x"), printf: "oct\\\\040al x" },
} as const;

const FSMONITOR = `'[core]\\n\\tfsmonitor = "touch fired; echo"\\n'`;

/** Bash that sets `$n` to the directory name made by `format`. */
const nameIn = (format: string) => `n="$(printf '${format}')"`;

/** Appends an fsmonitor to `$n`'s config and writes a pre-commit hook; prints `planted` for each that worked. */
const PLANT = `printf ${FSMONITOR} >> "$n/.git/config" && echo planted; printf '#!/bin/sh\\ntouch fired\\n' > "$n/.git/hooks/pre-commit" && echo planted`;

const at = (workspace: string, name: Buffer, rest: string) =>
  Buffer.concat([Buffer.from(`${workspace}/`), name, Buffer.from(rest)]);

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: git state under names that are not UTF-8 or that the mount table escapes"),
  () => {
    const grounds: Playground[] = [];
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace with a repository in a directory of each of the {@link NAMES}. */
    async function workspaceWithRepositories(): Promise<string> {
      const ground = await playground();
      grounds.push(ground);
      const make = Object.values(NAMES)
        .map(({ printf }) => `${nameIn(printf)} && mkdir "$n" && git init -q "$n"`)
        .join(" && ");
      execFileSync("bash", ["-c", `${make} && git init -q utf`], { cwd: ground.workspace });
      return ground.workspace;
    }

    const unplanted = (workspace: string, name: Buffer) => {
      expect(readFileSync(at(workspace, name, "/.git/config"), "utf8")).not.toContain("fsmonitor");
      expect(existsSync(at(workspace, name, "/.git/hooks/pre-commit"))).toBe(false);
    };

    for (const [label, { bytes, printf }] of Object.entries(NAMES)) {
      escapeAttempt("git-metadata", `a repository in a directory whose name holds ${label}: its config and hooks`, async () => {
        const workspace = await workspaceWithRepositories();
        const result = await sh(
          attackRun(workspace, "workspace"),
          `${nameIn(printf)}; ${PLANT}; echo data > "$n/work.txt" && echo wrote; echo ran`,
        );
        // It runs (the old code refused every command of the workspace for the name not valid UTF-8).
        expect(result.status).not.toBe("error:sandbox_unavailable");
        expect(result.stdout).not.toContain("planted");
        expect(result.stderr).toContain("Read-only file system");
        unplanted(workspace, bytes);
        // Control: the work tree beside the git directory is the command's to write.
        expect(result.stdout).toBe("wrote\nran");
        expect(readFileSync(at(workspace, bytes, "/work.txt"), "utf8")).toBe("data\n");
      });
    }

    escapeAttempt(
      "git-metadata",
      "a command makes a repository under a name not valid UTF-8; the next commands run, and it is protected",
      async () => {
        const ground = await playground();
        grounds.push(ground);
        const run = attackRun(ground.workspace, "workspace");
        const made = await sh(run, `${nameIn("x\\377")} && mkdir "$n" && git init -q "$n" && echo made`);
        expect(made.stdout).toBe("made");
        // The old code refused this and every later command of the run (SandboxUnavailableError undecodable_name).
        const next = await sh(run, `${nameIn("x\\377")}; echo ran; ${PLANT}`);
        expect(next.status).not.toBe("error:sandbox_unavailable");
        expect(next.stdout).toBe("ran");
        const name = Buffer.from([0x78, 0xff]);
        const config = at(ground.workspace, name, "/.git/config");
        if (existsSync(config)) expect(readFileSync(config, "utf8")).not.toContain("fsmonitor");
        expect(existsSync(at(ground.workspace, name, "/.git/hooks/pre-commit"))).toBe(false);
      },
    );

    escapeAttempt(
      "git-metadata",
      "a submodule git directory whose name is not UTF-8 (.git/modules/<name>): its config is writable",
      async () => {
        const ground = await playground();
        grounds.push(ground);
        const workspace = ground.workspace;
        execFileSync("bash", ["-c", `git init -q . && git init -q --bare ".git/modules/$(printf 'v\\377')"`], { cwd: workspace });
        const result = await sh(
          attackRun(workspace, "workspace"),
          `echo ran; printf ${FSMONITOR} >> ".git/modules/$(printf 'v\\377')/config" && echo planted`,
        );
        expect(result.stdout).toBe("ran");
        expect(result.stderr).toContain("Read-only file system");
        const config = Buffer.concat([
          Buffer.from(`${workspace}/.git/modules/`),
          Buffer.from([0x76, 0xff]),
          Buffer.from("/config"),
        ]);
        expect(readFileSync(config, "utf8")).not.toContain("fsmonitor");
      },
    );

    it("control: under scope local the plant goes through in each directory", async () => {
      const workspace = await workspaceWithRepositories();
      const plants = Object.values(NAMES)
        .map(({ printf }) => `${nameIn(printf)}; ${PLANT}`)
        .join("; ");
      const local = await sh(attackRun(workspace, "local"), plants);
      expect(local.stdout.split("\n").filter((line) => line === "planted")).toHaveLength(2 * Object.keys(NAMES).length);
      for (const { bytes } of Object.values(NAMES))
        expect(readFileSync(at(workspace, bytes, "/.git/config"), "utf8")).toContain("fsmonitor");
    });
  },
);
