import type { Run } from "agent-tool-catalog";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { looseDirectoryCounts } from "../../src/tools/sandbox/loose-object-directories.js";
import { capability } from "../support/capabilities.js";
import { shortRacyMargin } from "../support/short-racy-margin.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { hostGitOutput } from "./support/host-git.js";
import { playgroundBesideHostSecret } from "./support/one-commit-playground.js";
import { attackRun, type Playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const git = capability("git");

/** The command's identity for its own commits. */
const ID = "git -c user.email=m@example.com -c user.name=M";

/** Past the shortened racy margin (200 ms): the walk after the next command may remember what it lists. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 400));

describe.skipIf(bubblewrap.missing || git.missing)(
  bubblewrap.label("escape attempts: round 41, loose-object directories the link walk skips as unchanged"),
  () => {
    const grounds: Playground[] = [];
    let restoreRacyMargin: () => void = () => {};
    beforeAll(async () => {
      restoreRacyMargin = await shortRacyMargin();
    });
    afterAll(() => restoreRacyMargin());
    afterEach(async () => {
      for (const ground of grounds.splice(0)) await ground.dispose();
    });

    /** A workspace repository with one commit, and a host repository holding `secret.txt` (loose). */
    async function setUp() {
      const { root, host, secret, blob } = await playgroundBesideHostSecret(grounds, "r41-loose");
      return { root, host, secret, blob, bb: blob.slice(0, 2), rest: blob.slice(2) };
    }

    /** Commits a tree naming `blob` on `main` (the object itself is the planted link's). */
    const commitNaming = (blob: string) =>
      `T=$(printf '100644 blob ${blob}\\tsecret.txt\\n' | git mktree --missing) && C=$(${ID} commit-tree -p HEAD -m planted "$T") && git update-ref refs/heads/main "$C"`;

    /** The user resets; the next command prints what the reset checked out. */
    async function userResets(root: string, run: Run, secret: string): Promise<boolean> {
      hostGitOutput(root, ["reset", "-q", "--hard"]);
      const shown = await sh(run, "cat secret.txt 2>&1; echo shown");
      return shown.stdout.includes(secret);
    }

    /** Primes the walk with an empty `objects/<bb>`, then plants the link with its times put back (in place or by a whole rename). */
    async function timeResetAttempt(scope: "workspace" | "local", spelling: "touch" | "rename") {
      const { root, host, secret, blob, bb, rest } = await setUp();
      const run = attackRun(root, scope);
      expect((await sh(run, `mkdir -p .git/objects/${bb} && echo made`)).stdout).toContain("made");
      await settle();
      // The walk after this command lists the settled directory and remembers it clean.
      expect((await sh(run, "echo made")).stdout).toContain("made");
      const skippedBefore = looseDirectoryCounts.skipped;
      const target = quote(`${host}/.git/objects/${bb}/${rest}`);
      const plant =
        spelling === "touch"
          ? `touch -r .git/objects/${bb} times && ln -s ${target} .git/objects/${bb}/${rest} && touch -r times .git/objects/${bb}`
          : // The repository's own objects may share the prefix (a clean-clone CI drew one): they move along.
            `touch -r .git/objects/${bb} times && mkdir d && for f in .git/objects/${bb}/*; do if [ -e "$f" ]; then mv "$f" d/ || exit 1; fi; done && ln -s ${target} d/${rest} && touch -r times d && rmdir .git/objects/${bb} && mv d .git/objects/${bb}`;
      const result = await sh(run, `${plant} && ${commitNaming(blob)} && echo made`);
      expect(result.stdout, result.text).toContain("made");
      return {
        read: await userResets(root, run, secret),
        text: result.text,
        skipped: looseDirectoryCounts.skipped - skippedBefore,
      };
    }

    escapeAttempt(
      "git-metadata",
      "a loose-object directory the walk saw clean gets a link to a host object, its modification time put back (touch -r, or a whole directory renamed in): the user's reset checks the host object out",
      async () => {
        const escapes: string[] = [];
        for (const spelling of ["touch", "rename"] as const) {
          const denied = await timeResetAttempt("workspace", spelling);
          if (denied.read) escapes.push(`${spelling}: the host repository's object reached the next command`);
          if (!denied.text.includes("[moved aside")) escapes.push(`${spelling}: nothing moved aside`);
          // The walk after the attack skipped the repository's other, unchanged loose-object directories: the skip was in play.
          expect(denied.skipped, denied.text).toBeGreaterThan(0);
        }
        expect(escapes).toEqual([]);
        // Control: with no git protection the user's reset reads through the link.
        const control = await timeResetAttempt("local", "touch");
        expect(control.read, `control did not read: ${control.text}`).toBe(true);
      },
      120_000,
    );

    /** A loose object linked inside the workspace (kept), seen settled, then what it leads to relinked to the host's object directory. */
    async function relinkAttempt(scope: "workspace", relink: boolean) {
      const { root, host, secret, blob, bb, rest } = await setUp();
      const run = attackRun(root, scope);
      const planted = await sh(
        run,
        `mkdir -p store .git/objects/${bb} && echo x > store/${rest} && ln -s ../../../store/${rest} .git/objects/${bb}/${rest} && echo made`,
      );
      expect(planted.text).not.toContain("[moved aside");
      await settle();
      expect((await sh(run, "echo made")).stdout).toContain("made");
      const command = relink
        ? `rm -rf store && ln -s ${quote(`${host}/.git/objects/${bb}`)} store && ${commitNaming(blob)} && echo made`
        : "echo made";
      const result = await sh(run, command);
      expect(result.stdout, result.text).toContain("made");
      return { read: relink && (await userResets(root, run, secret)), text: result.text };
    }

    escapeAttempt(
      "git-metadata",
      "a loose object linked inside the workspace is kept; once its directory has settled, the command relinks what it leads to to the host repository's objects: the user's reset checks the host object out",
      async () => {
        const denied = await relinkAttempt("workspace", true);
        expect(denied.read, denied.text).toBe(false);
        expect(denied.text).toContain("[moved aside");
        // Control: while it still leads inside, the link is kept.
        const kept = await relinkAttempt("workspace", false);
        expect(kept.text).not.toContain("[moved aside");
      },
      120_000,
    );
  },
);
