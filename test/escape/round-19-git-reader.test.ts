/**
 * Round 19: what the git tools' confined reader does with a link a sandboxed command planted in
 * `.git` that leads outside the workspace. It refused to read through it, but (1) a link whose
 * target did not exist was read as "no such ref" while one whose target existed was refused, an
 * oracle on the host's files (`refs/heads/x -> /root/.ssh/id_ed25519`), and (2) the file was
 * opened before its location was checked, so a link to a host FIFO woke the host process blocked
 * writing to it (and a link to a device would have run its driver's open). Each attempt has its
 * control: without the sandbox the same link tells existing from missing, and wakes the writer.
 *
 * Review of that fix: a dangling link's text was resolved with `path.resolve`, which drops
 * `L/..` as text, while the kernel follows `L` first and climbs from where it led. With
 * `L -> /etc`, `x -> L/../etc/hostname` was refused and `y -> L/../etc/no-such-file` read as
 * absent: the oracle again, through any `..` after a link.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { confinedReader } from "../../src/git/git-file-reader.js";
import { git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { makeSecretRepository } from "./support/git-tool-calls.js";
import { diffRangeAnswers, plantRefLinks } from "./support/planted-ref-links.js";
import { quote } from "./support/sandbox-harness.js";

const gitCapability = capability("git");
const bubblewrap = capability("bubblewrap");

describe.skipIf(gitCapability.missing || bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 19, links in .git to the host"),
  () => {
    let scratch: string;
    let workspace: string;
    let outside: string;
    const writers: ChildProcess[] = [];
    beforeEach(() => {
      scratch = temporaryDirectory("escape-19-reader");
      workspace = path.join(scratch, "workspace");
      outside = path.join(scratch, "outside");
      mkdirSync(outside);
      makeSecretRepository(workspace, "inside-secret");
      // A host file that exists, holding a real commit id of the workspace repository (so that,
      // followed, it is a branch that resolves).
      writeFileSync(path.join(outside, "exists"), `${git(workspace, ["rev-parse", "HEAD~1"])}\n`);
    });
    afterEach(async () => {
      // Waited for: a writer still opening the FIFO under `scratch` when the signal comes is
      // still running while the directory is removed.
      await Promise.all(writers.splice(0).map((writer) => stopProcess(writer)));
      removeDirectory(scratch);
    });

    /** A sandboxed command (local) links `.git/refs/heads/<name>` to each target, as a model would. */
    const plantLinks = (links: Readonly<Record<string, string>>) => plantRefLinks(workspace, "local", links);
    /** The answers of `git_diff_range` from each branch, under `sandbox`. */
    const answers = (sandbox: SandboxScope, branches: readonly string[]) => diffRangeAnswers(workspace, sandbox, branches);

    escapeAttempt("paths", "git tools: a ref linked to a host file answers alike whether the file exists", async () => {
      await plantLinks({
        present: path.join(outside, "exists"),
        missing: path.join(outside, "no-such-file"),
        dir: outside,
        "missing-dir": path.join(outside, "no-such-dir"),
      });
      const [present, missing, inDirPresent, inDirMissing, belowMissingDir] = await answers("workspace", [
        "present",
        "missing",
        "dir/exists",
        "dir/no-such-file",
        "missing-dir/x",
      ]);
      expect(present).toMatch(/^repository_outside_workspace:/);
      expect(missing, "a missing outside target must be refused like an existing one").toBe(present);
      expect(inDirMissing).toBe(inDirPresent);
      expect(belowMissingDir).toBe(inDirPresent);
      for (const shown of [present, missing, inDirPresent, inDirMissing]) expect(shown).not.toContain(outside);
      // Controls: without the sandbox the link is followed, and existing differs from missing.
      const [openPresent, openMissing] = await answers("unrestricted", ["present", "missing"]);
      expect(openPresent).toMatch(/^ok:/);
      expect(openMissing).toMatch(/^unknown_ref:/);
      // A dangling link inside the workspace is still "no such ref" under the sandbox, and a branch is still read.
      await plantLinks({ "inside-dangling": path.join(workspace, "no-such-file") });
      const [insideDangling, head] = await answers("workspace", ["inside-dangling", "HEAD~1"]);
      expect(insideDangling).toMatch(/^unknown_ref:/);
      expect(head).toMatch(/^ok:/);
    });

    escapeAttempt("paths", "git tools: a ref climbing out after a link answers alike whether the file exists", async () => {
      await plantLinks({
        L: outside,
        "after-present": "L/../outside/exists",
        "after-missing": "L/../outside/no-such-file",
      });
      const [present, missing] = await answers("workspace", ["after-present", "after-missing"]);
      expect(present).toMatch(/^repository_outside_workspace:/);
      expect(missing, "a missing outside target must be refused like an existing one").toBe(present);
      // Control: without the sandbox the kernel's lookup reads the host file, and missing is no ref.
      const [openPresent, openMissing] = await answers("unrestricted", ["after-present", "after-missing"]);
      expect(openPresent).toMatch(/^ok:/);
      expect(openMissing).toMatch(/^unknown_ref:/);
    });

    /** A host process blocked writing to a FIFO outside the workspace; resolves `true` once its open returned. */
    function blockedWriter(fifo: string): { readonly woke: () => boolean } {
      execFileSync("mkfifo", [fifo]);
      let woke = false;
      const writer = spawn("sh", ["-c", `exec 3>${quote(fifo)}; echo woke`], { stdio: ["ignore", "pipe", "ignore"] });
      writers.push(writer);
      writer.stdout?.on("data", () => {
        woke = true;
      });
      return { woke: () => woke };
    }

    escapeAttempt(
      "resources",
      "git tools: a ref linked to a host FIFO does not wake the host process writing to it",
      async () => {
        const writer = blockedWriter(path.join(outside, "fifo"));
        await plantLinks({ fifo: path.join(outside, "fifo") });
        const [refused] = await answers("workspace", ["fifo"]);
        expect(refused).toMatch(/^repository_outside_workspace:/);
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(writer.woke(), "the host's writer was woken by the git tools' open").toBe(false);
        // Control: without the sandbox the git tools open the link's target, and the writer wakes.
        await answers("unrestricted", ["fifo"]);
        const deadline = Date.now() + 5_000;
        while (!writer.woke() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
        expect(writer.woke()).toBe(true);
      },
    );
  },
);

/**
 * The confined reader itself, on links a command could plant (made here with `symlink`): every
 * lookup that leaves the workspace answers the same whether its target exists, however it gets
 * there; lookups that stay inside answer as before.
 */
describe("escape attempts: round 19 review, the confined reader's lookup of dangling links", () => {
  let scratch: string;
  let workspace: string;
  let heads: string;
  beforeEach(() => {
    scratch = temporaryDirectory("escape-19-lookup");
    workspace = path.join(scratch, "workspace");
    heads = path.join(workspace, ".git", "refs", "heads");
    mkdirSync(heads, { recursive: true });
    mkdirSync(path.join(workspace, ".git", "objects"));
    writeFileSync(path.join(heads, "main"), "0123456789abcdef0123456789abcdef01234567\n");
    mkdirSync(path.join(scratch, "outside"));
    writeFileSync(path.join(scratch, "outside", "exists"), "host file\n");
  });
  afterEach(() => removeDirectory(scratch));

  /** Links `refs/heads/<name>` to each target. */
  function plant(links: Readonly<Record<string, string>>): void {
    for (const [name, target] of Object.entries(links)) symlinkSync(target, path.join(heads, name));
  }

  /** What the confined reader answers for each ref, the ref's own name replaced by `<ref>`. */
  function read(names: readonly string[]): string[] {
    const reader = confinedReader(workspace);
    return names.map((name) => {
      try {
        const bytes = reader.readFile(path.join(heads, name));
        return bytes === undefined ? "absent" : `read:${bytes.toString().trim()}`;
      } catch (error) {
        const { code, message } = error as { code?: string; message: string };
        return `${code}:${message}`.replaceAll(name, "<ref>");
      }
    });
  }

  escapeAttempt("paths", "a `..` after a link, a chain of directory links, a climb from inside: refused alike", () => {
    plant({
      // The reviewer's case, on a directory the test owns: `..` applies after the link is followed.
      L: path.join(scratch, "outside"),
      "after-exists": "L/../outside/exists",
      "after-missing": "L/../outside/no-such-file",
      "after-missing-dir": "L/../outside/no-such-dir/x",
      // A link to a chain of directory links (relative, inside) whose last leads out, then `..`.
      C1: "C2",
      C2: "C3",
      C3: "../../../../outside",
      "chain-exists": "C1/../outside/exists",
      "chain-missing": "C1/../outside/no-such-file",
      "chain-below-exists": "C1/exists",
      "chain-below-missing": "C1/no-such-file",
      // `..` climbing out from inside, through a link to a directory deeper in `.git`, and plainly.
      deep: "../../objects",
      "climb-exists": "deep/../../../outside/exists",
      "climb-missing": "deep/../../../outside/no-such-file",
      "up-exists": "../../../../outside/exists",
      "up-missing": "../../../../outside/no-such-file",
      // An absolute link whose text climbs out again after a link.
      "absolute-exists": `${path.join(heads, "L")}/../outside/exists`,
      "absolute-missing": `${path.join(heads, "L")}/../outside/no-such-file`,
    });
    const [refused, ...others] = read([
      "after-exists",
      "after-missing",
      "after-missing-dir",
      "chain-exists",
      "chain-missing",
      "chain-below-exists",
      "chain-below-missing",
      "climb-exists",
      "climb-missing",
      "up-exists",
      "up-missing",
      "absolute-exists",
      "absolute-missing",
    ]);
    expect(refused).toMatch(/^repository_outside_workspace:/);
    expect(refused).not.toContain(scratch);
    for (const answer of others) expect(answer, "every outside lookup must answer as an existing target does").toBe(refused);
    // Controls: the same links resolve inside the workspace when their lookups stay inside.
    plant({
      "inside-dangling": "no-such-file",
      "inside-dangling-absolute": path.join(workspace, "no-such-file"),
      I1: "I2",
      I2: "../../objects",
      "inside-chain-missing": "I1/no-such-file",
      "inside-up-main": "deep/../refs/heads/main",
      "inside-up-missing": "deep/../refs/heads/no-such-ref",
      "around-main": "../../../../workspace/.git/refs/heads/main",
      "around-missing": "../../../../workspace/.git/refs/heads/no-such-ref",
      // A missing name ends the lookup (ENOENT) whatever `..` follows it.
      "gap-then-out": "no-such-dir/../../../../outside/exists",
    });
    const inside = read([
      "main",
      "inside-dangling",
      "inside-dangling-absolute",
      "inside-chain-missing",
      "inside-up-main",
      "inside-up-missing",
      "around-main",
      "around-missing",
      "gap-then-out",
    ]);
    const main = "read:0123456789abcdef0123456789abcdef01234567";
    expect(inside).toEqual([main, "absent", "absent", "absent", main, "absent", main, "absent", "absent"]);
  });
});
