/**
 * More hostile layouts against the git history tools, beyond git-metadata-git-tools.test.ts:
 * alternates that reach outside through /proc, http-alternates, a pack directory that is a
 * symbolic link, refs whose names climb out with `..`, and symbolic ref loops. Under sandbox
 * "workspace" each leak is refused with `repository_outside_workspace` and nothing of the outside
 * repository is shown; names git itself refuses (`..` refs) are refused in every scope, as git
 * does; a ref loop ends with a structured code at once. Each attempt has its positive control.
 */
import { cpSync, mkdirSync, readdirSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type FixtureRepository, git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { gitRun } from "../git/support/git-run.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { expectGitToolsAnswered, expectGitToolsFailed, gitToolCalls, makeSecretRepository } from "./support/git-tool-calls.js";

const gitCapability = capability("git");
const SECRET = "hostile-outside-secret-51c2";

const CALLS = gitToolCalls(SECRET, "secret.txt");

let scratch: string;
let outside: FixtureRepository;
let counter = 0;

function newWorkspace(): string {
  const directory = path.join(scratch, `workspace-${++counter}`);
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** Every tool fails with one of `codes`, showing nothing of the outside repository. */
async function expectFailed(workspace: string, sandbox: SandboxScope, codes: readonly string[]): Promise<void> {
  await expectGitToolsFailed(workspace, sandbox, CALLS, codes, [SECRET, outside.directory]);
}

async function expectAnswered(workspace: string, sandbox: SandboxScope): Promise<void> {
  await expectGitToolsAnswered(workspace, sandbox, CALLS, SECRET);
}

/** Whether the git CLI can resolve `revision` in `directory`. */
function gitResolves(directory: string, revision: string): boolean {
  try {
    git(directory, ["rev-parse", "--verify", "-q", `${revision}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

describe.skipIf(gitCapability.missing)(
  gitCapability.label("hostile git layouts: /proc, http-alternates, pack links, .. refs, loops"),
  () => {
    beforeAll(() => {
      scratch = temporaryDirectory("escape-hostile-git");
      outside = makeSecretRepository(path.join(scratch, "outside"), SECRET);
      git(outside.directory, ["repack", "-adq"]);
    });
    afterAll(() => removeDirectory(scratch));

    escapeAttempt(
      "git-metadata",
      "objects/info/alternates reaching an outside object directory through /proc/self/root",
      async () => {
        const workspace = newWorkspace();
        git(scratch, ["clone", "-q", "--shared", outside.directory, workspace]);
        const alternates = path.join(workspace, ".git", "objects", "info", "alternates");
        writeFileSync(alternates, `/proc/self/root${path.join(outside.directory, ".git", "objects")}\n`);
        await expectFailed(workspace, "workspace", ["repository_outside_workspace"]);
        // Control: the path works (for git and without the sandbox), so the refusal is the sandbox's.
        expect(gitResolves(workspace, "HEAD")).toBe(true);
        await expectAnswered(workspace, "unrestricted");
      },
    );

    escapeAttempt("git-metadata", "objects/info/http-alternates naming an outside object directory is never read", async () => {
      const workspace = newWorkspace();
      git(scratch, ["clone", "-q", "--shared", outside.directory, workspace]);
      const info = path.join(workspace, ".git", "objects", "info");
      renameSync(path.join(info, "alternates"), path.join(info, "http-alternates"));
      // git reads http-alternates only for dumb HTTP fetches: locally the objects are missing, for git too.
      expect(gitResolves(workspace, "HEAD")).toBe(false);
      await expectFailed(workspace, "workspace", ["missing_object", "unknown_ref"]);
      await expectFailed(workspace, "unrestricted", ["missing_object", "unknown_ref"]);
      // Control: as plain alternates inside the allowed roots (no sandbox) they are followed.
      renameSync(path.join(info, "http-alternates"), path.join(info, "alternates"));
      await expectAnswered(workspace, "unrestricted");
    });

    escapeAttempt("git-metadata", ".git/objects/pack a symbolic link to an outside pack directory", async () => {
      const workspace = newWorkspace();
      cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
      const pack = path.join(workspace, ".git", "objects", "pack");
      removeDirectory(pack);
      symlinkSync(path.join(outside.directory, ".git", "objects", "pack"), pack);
      await expectFailed(workspace, "workspace", ["repository_outside_workspace"]);
      await expectAnswered(workspace, "unrestricted");
      // Control: a pack directory linked to another directory inside the workspace works.
      const inside = newWorkspace();
      cpSync(path.join(outside.directory, ".git"), path.join(inside, ".git"), { recursive: true });
      renameSync(path.join(inside, ".git", "objects", "pack"), path.join(inside, "packs-elsewhere"));
      symlinkSync(path.join(inside, "packs-elsewhere"), path.join(inside, ".git", "objects", "pack"));
      expect(readdirSync(path.join(inside, ".git", "objects", "pack")).some((name) => name.endsWith(".pack"))).toBe(true);
      await expectAnswered(inside, "workspace");
    });

    escapeAttempt("git-metadata", "HEAD a symbolic ref whose name climbs out of the repository with ..", async () => {
      const workspace = newWorkspace();
      cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
      // An outside ref naming the same commit: reading it would "work" (the objects are here), so only the name is refused.
      const outsideRef = path.join(outside.directory, ".git", "refs", "heads", "main");
      writeFileSync(path.join(workspace, ".git", "HEAD"), `ref: ${path.relative(path.join(workspace, ".git"), outsideRef)}\n`);
      // git refuses such a name too.
      expect(gitResolves(workspace, "HEAD")).toBe(false);
      await expectFailed(workspace, "workspace", ["unknown_ref", "empty_repository", "repository_outside_workspace"]);
      await expectFailed(workspace, "unrestricted", ["unknown_ref", "empty_repository"]);
      // Control: an ordinary symbolic HEAD works under the sandbox.
      writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/main\n");
      await expectAnswered(workspace, "workspace");
    });

    escapeAttempt("git-metadata", "a revision from the model that climbs out with .. to an outside ref file", async () => {
      const workspace = newWorkspace();
      cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
      const outsideRef = path.join(outside.directory, ".git", "refs", "heads", "main");
      const climbing = path.relative(path.join(workspace, ".git", "refs", "heads"), outsideRef);
      for (const sandbox of ["workspace", "unrestricted"] as const) {
        const result = await gitRun(workspace, {}, sandbox).call("git_diff_range", { from: climbing });
        expect(result.ok, JSON.stringify(result).slice(0, 300)).toBe(false);
        if (!result.ok) expect(["unknown_ref", "invalid_ref"]).toContain(result.error.code);
      }
      expect(gitResolves(workspace, climbing)).toBe(false);
      // Control: the branch by its name works.
      expect((await gitRun(workspace, {}, "workspace").call("git_diff_range", { from: "main~1" })).ok).toBe(true);
    });

    escapeAttempt("git-metadata", "symbolic ref loops and long chains (HEAD -> a -> b -> a; seven levels)", async () => {
      const workspace = newWorkspace();
      cpSync(path.join(outside.directory, ".git"), path.join(workspace, ".git"), { recursive: true });
      const heads = path.join(workspace, ".git", "refs", "heads");
      writeFileSync(path.join(heads, "a"), "ref: refs/heads/b\n");
      writeFileSync(path.join(heads, "b"), "ref: refs/heads/a\n");
      writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/a\n");
      expect(gitResolves(workspace, "HEAD")).toBe(false);
      await expectFailed(workspace, "workspace", ["unknown_ref", "empty_repository"]);
      for (let level = 0; level < 7; level++) writeFileSync(path.join(heads, `c${level}`), `ref: refs/heads/c${level + 1}\n`);
      writeFileSync(path.join(heads, "c7"), `${outside.head()}\n`);
      writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/c0\n");
      // git gives up after 5 levels too.
      expect(gitResolves(workspace, "HEAD")).toBe(false);
      await expectFailed(workspace, "workspace", ["unknown_ref", "empty_repository"]);
      // Control: a chain of three levels resolves, for git and the tools.
      writeFileSync(path.join(workspace, ".git", "HEAD"), "ref: refs/heads/c5\n");
      expect(gitResolves(workspace, "HEAD")).toBe(true);
      await expectAnswered(workspace, "workspace");
    });
  },
);
