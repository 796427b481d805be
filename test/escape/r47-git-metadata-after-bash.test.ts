/**
 * Round 47: the git tools called right after a `workspace`-scope bash command rewrote the
 * workspace's `.git` to lead outside: alternates naming a host repository's objects (HEAD set to
 * its commit), a HEAD naming `refs/../../<outside>`, a `commondir` and a `.git` file naming the
 * host repository, a loose object that is a FIFO and one that is a link to a host file, a pack
 * index linked to a host file, a replace ref to the host repository's commit. No answer may show
 * the host repository's secret or directory, and no call may hang (each within 10 s). Each
 * attempt pins what happened: the sandbox refused or undid the change (then the tools answer the
 * workspace's own history: the positive control that they work under the sandbox), or the change
 * was made and the reader refused it. The same states made by the host (not a command) are
 * `git-metadata-hostile-links.test.ts` (round 19/25).
 */
import { existsSync, lstatSync, mkdirSync, readdirSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { FixtureRepository, git } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { callGitTools, gitToolCalls, makeSecretRepository } from "./support/git-tool-calls.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const gitCapability = capability("git");
const SECRET = "r47-host-secret-5be1";
const MARKER = "r47-inside-marker";
const CALLS = gitToolCalls(MARKER, "file.txt");

describe.skipIf(bubblewrap.missing || gitCapability.missing)(
  bubblewrap.label(gitCapability.label("escape attempts: git tools after a sandboxed command rewrote .git")),
  () => {
    let ground: Playground;
    let hostRepository: string;
    let hostCommit: string;
    let counter = 0;

    /** A fresh two-commit repository (packed) in a new workspace directory, answering under the sandbox. */
    async function freshWorkspace(): Promise<string> {
      const workspace = path.join(ground.workspace, `w${++counter}`);
      mkdirSync(workspace, { recursive: true });
      git(workspace, ["init", "-q"]);
      const repository = new FixtureRepository(workspace);
      repository.write("file.txt", "one\n").commit("first", { name: "In", email: "in@example.com" });
      repository.write("file.txt", `${MARKER}\n`).commit(`add ${MARKER}`, { name: "In", email: "in@example.com" });
      return workspace;
    }

    /**
     * Runs `command` with bash under `workspace` scope in `workspace`, then every git tool (each
     * within 10 s); no answer shows the host repository. Returns the command's status, whether its
     * state is there afterwards (from the host) and each tool's error code (`ok` when it answered).
     */
    async function attack(
      workspace: string,
      command: string,
      made: () => boolean,
    ): Promise<{ status: string; stderr: string; made: boolean; codes: string[] }> {
      const shell = await sh(attackRun(workspace, "workspace"), command);
      let there = false;
      try {
        there = made();
      } catch {
        there = false;
      }
      const codes: string[] = [];
      for (const { name, result } of await callGitTools(workspace, "workspace", CALLS)) {
        const text = JSON.stringify(result);
        expect(text, name).not.toContain(SECRET);
        expect(text, name).not.toContain(hostRepository);
        codes.push(result.ok ? "ok" : result.error.code);
      }
      return { status: shell.status, stderr: shell.stderr, made: there, codes };
    }

    const all = (code: string) => CALLS.map(() => code);

    beforeAll(async () => {
      ground = await playground();
      hostRepository = path.join(ground.outside, "host-repository");
      makeSecretRepository(hostRepository, SECRET);
      hostCommit = git(hostRepository, ["rev-parse", "HEAD"]).trim();
    }, 30_000);
    afterAll(async () => {
      await ground?.dispose();
    });

    escapeAttempt(
      "git-metadata",
      "r47: bash writes alternates naming a host repository's objects and HEAD its commit",
      async () => {
        const workspace = await freshWorkspace();
        const objects = quote(path.join(hostRepository, ".git", "objects"));
        const out = await attack(
          workspace,
          `printf '%s\\n' ${objects} > .git/objects/info/alternates && printf '%s\\n' ${hostCommit} > .git/HEAD`,
          () => existsSync(path.join(workspace, ".git", "objects", "info", "alternates")),
        );
        // The sandbox refuses the write (objects/info/ is read-only); the tools keep answering the workspace's own history.
        expect(out).toMatchObject({ status: "exit code 1", made: false, codes: all("ok") });
        expect(out.stderr).toContain("Read-only file system");
      },
    );

    escapeAttempt("git-metadata", "r47: bash sets HEAD to ref: refs/../../<outside ref file>", async () => {
      const workspace = await freshWorkspace();
      const up = path.relative(path.join(workspace, ".git"), path.join(hostRepository, ".git", "HEAD"));
      // Written (HEAD is the command's to change); the reader never follows the ref out: no branch, nothing read.
      const out = await attack(workspace, `printf 'ref: refs/../%s\\n' ${quote(up)} > .git/HEAD`, () => true);
      expect(out).toMatchObject({ status: "exit code 0", codes: all("empty_repository") });
    });

    escapeAttempt("git-metadata", "r47: bash writes a commondir, and then a .git file, naming a host repository", async () => {
      const workspace = await freshWorkspace();
      // commondir is pinned absent: the write lands nowhere the host sees, and the tools answer the workspace.
      const commondir = await attack(
        workspace,
        `printf '%s\\n' ${quote(path.join(hostRepository, ".git"))} > .git/commondir`,
        () => existsSync(path.join(workspace, ".git", "commondir")),
      );
      expect(commondir).toMatchObject({ made: false, codes: all("ok") });
      const second = await freshWorkspace();
      // The repository directory cannot be moved away (a mount point in the sandbox), so no `.git` file replaces it.
      const gitFile = await attack(
        second,
        `mv .git moved-git; printf 'gitdir: %s\\n' ${quote(path.join(hostRepository, ".git"))} > .git`,
        () => lstatSync(path.join(second, ".git")).isFile(),
      );
      expect(gitFile).toMatchObject({ status: "exit code 1", made: false, codes: all("ok") });
    });

    escapeAttempt("git-metadata", "r47: bash makes the HEAD commit's loose object a FIFO, or a link to a host file", async () => {
      const workspace = await freshWorkspace();
      const head = git(workspace, ["rev-parse", "HEAD"]).trim();
      const loose = `.git/objects/${head.slice(0, 2)}/${head.slice(2)}`;
      // The FIFO is made; the reader refuses it without opening it (no call blocks), as a damaged repository.
      const fifo = await attack(workspace, `rm -f ${loose} && mkfifo ${loose}`, () =>
        lstatSync(path.join(workspace, loose)).isFIFO(),
      );
      expect(fifo).toMatchObject({ status: "exit code 0", made: true, codes: all("corrupt_object") });
      const second = await freshWorkspace();
      const secretFile = path.join(hostRepository, "secret.txt");
      // The link does not survive the command (the sandbox's walk after it); the object is simply missing.
      const link = await attack(second, `rm -f ${loose} && ln -s ${quote(secretFile)} ${loose}`, () =>
        lstatSync(path.join(second, loose)).isSymbolicLink(),
      );
      expect(link).toMatchObject({ status: "exit code 0", made: false, codes: all("unknown_ref") });
    });

    escapeAttempt("git-metadata", "r47: bash packs the repository and links the pack index to a host pack's index", async () => {
      git(hostRepository, ["repack", "-adq"]);
      const hostPack = path.join(hostRepository, ".git", "objects", "pack");
      const hostIndex = readdirSync(hostPack).find((name) => name.endsWith(".idx")) ?? "";
      const workspace = await freshWorkspace();
      const pack = path.join(workspace, ".git", "objects", "pack");
      // As for the loose object: the link does not survive the command, and the packed objects are gone with the index.
      expect(
        await attack(
          workspace,
          `git repack -adq 2>/dev/null; cd .git/objects/pack && for f in *.idx; do rm -f "$f"; ln -s ${quote(path.join(hostPack, hostIndex))} "$f"; done`,
          () => readdirSync(pack).some((name) => name.endsWith(".idx") && lstatSync(path.join(pack, name)).isSymbolicLink()),
        ),
      ).toMatchObject({ status: "exit code 0", made: false, codes: all("unknown_ref") });
    });

    escapeAttempt("git-metadata", "r47: bash writes a replace ref naming a host repository's commit", async () => {
      const workspace = await freshWorkspace();
      const head = git(workspace, ["rev-parse", "HEAD"]).trim();
      // The ref is written; its commit is in no object store the reader may open (alternates are read-only).
      expect(
        await attack(workspace, `mkdir -p .git/refs/replace && printf '%s\\n' ${hostCommit} > .git/refs/replace/${head}`, () =>
          existsSync(path.join(workspace, ".git", "refs", "replace", head)),
        ),
      ).toMatchObject({ status: "exit code 0", made: true, codes: all("corrupt_object") });
    });
  },
);
