/**
 * Round 20: a variant of round 19's oracle on host files through the git tools' confined reader.
 * Round 19 made a lookup that finds nothing answer alike whatever lies outside, but a lookup that
 * found something inside the workspace was read, however the kernel got there. A link whose text
 * leaves the workspace and climbs back (`refs/heads/x -> /host/dir/../../workspace/oid`) is found
 * only when `/host/dir` exists (the kernel follows `dir` before `..`), and a missing one was
 * refused: `ok` against `repository_outside_workspace` told the model which host directories exist
 * (`/root/.ssh`, a user's home, a mounted volume). Each attempt has its control: without the
 * sandbox the same link reads when the directory exists and is no ref when it does not, and a
 * link whose route stays inside is still read under the sandbox.
 *
 * Also held (file tools, same route): `read`, `grep` and `ls` through such a link answer alike
 * whether the host directory exists (they resolve a link's text within the workspace).
 */
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { SandboxScope } from "agent-tool-catalog";
import { afterEach, beforeEach, describe, expect } from "vitest";
import { git, removeDirectory, temporaryDirectory } from "../git/support/git-fixture.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { makeSecretRepository } from "./support/git-tool-calls.js";
import { answer, diffRangeAnswers, plantRefLinks } from "./support/planted-ref-links.js";
import { attackRun, quote, sh } from "./support/sandbox-harness.js";

const gitCapability = capability("git");
const bubblewrap = capability("bubblewrap");

describe.skipIf(gitCapability.missing || bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 20, links in .git that leave the workspace and come back"),
  () => {
    let scratch: string;
    let workspace: string;
    let outside: string;
    beforeEach(() => {
      scratch = temporaryDirectory("escape-20-routes");
      workspace = path.join(scratch, "workspace");
      outside = path.join(scratch, "outside");
      mkdirSync(path.join(outside, "dir"), { recursive: true });
      makeSecretRepository(workspace, "inside-secret");
      // A workspace file holding a real commit id, so that a link reaching it is a branch that resolves.
      writeFileSync(path.join(workspace, "oid"), `${git(workspace, ["rev-parse", "HEAD~1"])}\n`);
      mkdirSync(path.join(workspace, "inside-dir"));
    });
    afterEach(() => removeDirectory(scratch));

    /** A sandboxed command (workspace) links `.git/refs/heads/<name>` to each target, as a model would. */
    const plantLinks = (links: Readonly<Record<string, string>>) => plantRefLinks(workspace, "workspace", links);
    /** The answers of `git_diff_range` from each branch, under `sandbox`. */
    const answers = (sandbox: SandboxScope, branches: readonly string[]) => diffRangeAnswers(workspace, sandbox, branches);

    escapeAttempt(
      "paths",
      "git tools: a ref whose link leaves the workspace and climbs back answers alike whether the host directory exists",
      async () => {
        const back = path.relative(path.join(outside, "dir"), workspace);
        const links = {
          // Absolute: out to a host directory, `..` back into the workspace.
          "abs-present": `${path.join(outside, "dir")}/${back}/oid`,
          "abs-missing": `${path.join(outside, "no-such-dir")}/${back}/oid`,
          // Relative, climbing out of `.git/refs/heads` first.
          "rel-present": `../../../../outside/dir/${back}/oid`,
          "rel-missing": `../../../../outside/no-such-dir/${back}/oid`,
          // Through a link the command planted inside that leads out (`L/..` is where `L` led, up one).
          L: path.join(outside, "dir"),
          M: path.join(outside, "no-such-dir"),
          "via-present": `L/${back}/oid`,
          "via-missing": `M/${back}/oid`,
          // A directory of refs reached that way (`d/x` looks `d` up first).
          "dir-present": `${path.join(outside, "dir")}/${back}/.git/refs/heads`,
          "dir-missing": `${path.join(outside, "no-such-dir")}/${back}/.git/refs/heads`,
        };
        // Planted by a sandboxed command: every one of these links leaves the workspace on its
        // route, so the repair after the command (round 38) moves each aside, whether the host
        // directory it passes through exists or not (judged without looking outside): the refs
        // are unknown alike, and the command's listing of .git/refs/heads shows the same.
        await plantLinks(links);
        const kept = await sh(attackRun(workspace, "workspace"), "ls .git/refs/heads");
        expect(kept.stdout.split("\n").filter((name) => name in links)).toEqual([]);
        // Planted on the host (where no repair runs): the git reader's own route check refuses them alike.
        await plantRefLinks(workspace, "unrestricted", links);
        // The ref `d/<name>` inside a linked directory of refs: the workspace's own branch.
        const branch = git(workspace, ["symbolic-ref", "--short", "HEAD"]).trim();
        const pairs = [
          ["abs-present", "abs-missing"],
          ["rel-present", "rel-missing"],
          ["via-present", "via-missing"],
          [`dir-present/${branch}`, `dir-missing/${branch}`],
        ] as const;
        for (const [present, missing] of pairs) {
          const [shownPresent, shownMissing] = await answers("workspace", [present, missing]);
          expect(shownMissing, `${missing}`).toMatch(/^repository_outside_workspace:/);
          expect(shownPresent, `${present}: an existing host directory must be refused like a missing one`).toBe(shownMissing);
          expect(shownPresent).not.toContain(outside);
        }
        // Controls: without the sandbox the kernel's lookup tells existing from missing.
        const [openPresent, openMissing] = await answers("unrestricted", ["abs-present", "abs-missing"]);
        expect(openPresent).toMatch(/^ok:/);
        expect(openMissing).toMatch(/^unknown_ref:/);
        // A link whose route stays inside (out of a directory and back, plainly) still reads.
        await plantLinks({ inside: `${path.join(workspace, "inside-dir")}/../oid`, relative: "../../../oid" });
        const [inside, relative, head] = await answers("workspace", ["inside", "relative", "HEAD~1"]);
        expect(inside).toMatch(/^ok:/);
        expect(relative).toMatch(/^ok:/);
        expect(head).toMatch(/^ok:/);
      },
      30_000,
    );

    escapeAttempt(
      "paths",
      "file tools: a link that leaves the workspace and climbs back answers alike whether the host directory exists",
      async () => {
        const back = path.relative(path.join(outside, "dir"), workspace);
        const result = await sh(
          attackRun(workspace, "workspace"),
          [
            `ln -s ${quote(`${path.join(outside, "dir")}/${back}/oid`)} present`,
            `ln -s ${quote(`${path.join(outside, "no-such-dir")}/${back}/oid`)} missing`,
            `ln -s ${quote(`${path.join(outside, "dir")}/${back}/inside-dir`)} present-dir`,
            `ln -s ${quote(`${path.join(outside, "no-such-dir")}/${back}/inside-dir`)} missing-dir`,
            "echo planted",
          ].join(" && "),
        );
        expect(result.stdout.trim(), result.stderr).toBe("planted");
        // A fresh run per probe: a run answers a second read of an unchanged file with "unchanged since your last read".
        const shown = async (target: string, directory: string) => {
          const run = attackRun(workspace, "workspace");
          return [
            answer(await run.call("read", { path: target })),
            answer(await run.call("grep", { pattern: "[0-9a-f]", path: target })),
            answer(await run.call("ls", { path: directory })),
          ].map((text) => text.replaceAll(target, "<t>").replaceAll(directory, "<d>"));
        };
        expect(await shown("present", "present-dir")).toEqual(await shown("missing", "missing-dir"));
        // Control: the host's own lookup (outside the file tools) tells them apart.
        const host = await sh(
          attackRun(workspace, "unrestricted"),
          "cat present >/dev/null && ! cat missing 2>/dev/null && echo differ",
        );
        expect(host.stdout.trim(), host.stderr).toBe("differ");
      },
      30_000,
    );
  },
);
