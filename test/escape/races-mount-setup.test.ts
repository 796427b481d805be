/**
 * Escape attempts at bwrap's mounts while it sets a sandbox up (red team round 21). The git
 * protection binds paths below the workspace onto themselves (`--ro-bind sub/.git/hooks ...`,
 * `--bind sub/.git ...`), and bwrap resolves each path while it mounts, some time after the host
 * scanned them. Another command of the same workspace that is still running (here a parallel
 * `bash` call; a `monitor` process alike) owns every path it created after its own start, so it
 * can swap a protected directory for a link (`renameat2(RENAME_EXCHANGE)`, as fast as it can)
 * while later commands start: bwrap then bound the link's target, a host directory, into the new
 * sandbox (read-only for `hooks`, read-write for the git directory itself). The link is relative
 * and climbs to `/tmp`, which the sandbox has too (its own tmpfs), so source and destination both
 * land: the host's `/tmp` over the sandbox's, with the outside directory in it.
 *
 * Controls: the swapper really swaps (it counts), the host's file is readable unsandboxed, and
 * after the swapper stops the same run's commands start, write the workspace, and find the
 * nested repository's hooks read-only.
 */
import { existsSync, lstatSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { BubblewrapSandbox } from "../../src/tools/sandbox/bubblewrap-sandbox.js";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, type ShellOutcome, sh, spawnIn } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** Commands that get past the host's scan (which refuses a link it sees) while the swapper runs. */
const STARTED = 14;
/** At most this many calls in all (a refusal by the scan costs a few milliseconds). */
const CALLS = 400;

/**
 * Exchanges `a` and `b` (a directory and a link to `target`) until `stop` exists; prints how many
 * times. The repair after each command moves a link out of a git directory aside (round 38): when
 * it took the link while it stood at `a`, the directory is moved back from `b` and the link made
 * again, so the race goes on. When its rename raced an exchange and took the directory instead
 * (`b` is the link then), the repair puts the directory back unless the name is taken again; a
 * new directory is made at `a` where the swapper finds none, so it never exchanges two links (the
 * clean-clone CI of b140f151 saw that: 399 commands in a row refused, `hooks` a link in each).
 */
const SWAPPER = `
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b, stop, target = sys.argv[1].encode(), sys.argv[2].encode(), sys.argv[3], sys.argv[4]
n = 0
while not os.path.exists(stop) and n < 50000000:
    if libc.renameat2(-100, a, -100, b, 2) != 0:
        if ctypes.get_errno() != 2 or os.path.lexists(a):
            sys.exit('renameat2: %d' % ctypes.get_errno())
        try:
            if os.path.islink(b):
                os.mkdir(a)
            else:
                os.rename(b, a)
                os.symlink(target, b)
        except FileExistsError:
            pass
        n += n % 2
        continue
    n += 1
if n % 2: libc.renameat2(-100, a, -100, b, 2)
print('swapped', n)
`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: paths swapped while bwrap mounts them"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
    writeFileSync(path.join(ground.outside, "SECRET"), "host secret\n");
  });
  afterAll(async () => ground.dispose());

  /**
   * Runs `probe` commands (until {@link STARTED} got past the scan) while a parallel command of the same run exchanges `swapped`
   * (below the nested repository `repo`, which it creates) with a link climbing to `/tmp`;
   * returns their outcomes and the swapper's.
   */
  async function race(repo: string, swapped: string, probe: string): Promise<{ probes: ShellOutcome[]; swapper: ShellOutcome }> {
    // The climb works where the host's outside directory is in /tmp, which the sandbox has too.
    expect(ground.outside.startsWith("/tmp/")).toBe(true);
    const run = attackRun(ground.workspace, "workspace");
    const stop = `${repo}.stop`;
    const link = path.relative(path.dirname(path.join(ground.workspace, swapped)), "/tmp");
    const setUp = [
      // Only what a swapped-in link's target must hold too: a missing `hooks` or `info` becomes an empty tmpfs.
      swapped.endsWith("hooks") ? `mkdir -p ${repo}/.git/refs/heads ${repo}/.git/hooks` : `mkdir -p ${repo}/.git/refs/heads`,
      `printf 'ref: refs/heads/main\\n' > ${repo}/.git/HEAD`,
      // The link waits outside the git directory (where no repair moves it), relative to where it is swapped in.
      `ln -s ${quote(link)} ${repo}.swap-link`,
      `echo ready`,
      `exec python3 -c ${quote(SWAPPER)} ${swapped} ${repo}.swap-link ${stop} ${quote(link)}`,
    ].join(" && ");
    const swapper = sh(run, setUp, { timeout_seconds: 120 });
    // The swapper's repository is there before the probes start (its HEAD is what the scan looks for).
    for (
      let tries = 0;
      tries < 200 && lstatSync(path.join(ground.workspace, `${repo}.swap-link`), { throwIfNoEntry: false }) === undefined;
      tries++
    )
      await new Promise((resolve) => setTimeout(resolve, 25));
    const probes: ShellOutcome[] = [];
    try {
      let started = 0;
      for (let index = 0; index < CALLS && started < STARTED; index++) {
        const outcome = await sh(run, probe);
        if (outcome.status !== "error:sandbox_unavailable") started++;
        probes.push(outcome);
      }
    } finally {
      writeFileSync(path.join(ground.workspace, stop), "");
    }
    return { probes, swapper: await swapper };
  }

  function summary(probes: readonly ShellOutcome[]): string {
    return probes.map((probe) => `${probe.status}: ${(probe.stdout + probe.stderr + probe.text).slice(0, 160)}`).join("\n");
  }

  escapeAttempt(
    "races",
    "a nested repository's hooks directory swapped for a link to /tmp while later commands start: the host's /tmp read inside",
    async () => {
      const { probes, swapper } = await race("ra", "ra/.git/hooks", `cat ${quote(path.join(ground.outside, "SECRET"))} || true`);
      const leaked = probes.filter((probe) => probe.stdout.includes("host secret"));
      expect(leaked, summary(leaked)).toEqual([]);
      // Control: the swapper swapped, the commands ran (some refused while it raced them).
      expect(swapper.stdout).toMatch(/swapped [1-9]\d*/);
      expect(
        probes.some((probe) => probe.status.startsWith("exit code")),
        summary(probes),
      ).toBe(true);
      // Control: unsandboxed, the file is there to be read.
      const unrestricted = await sh(
        attackRun(ground.workspace, "unrestricted"),
        `cat ${quote(path.join(ground.outside, "SECRET"))}`,
      );
      expect(unrestricted.stdout).toBe("host secret");
    },
    120_000,
  );

  escapeAttempt(
    "races",
    "a nested git directory (bound read-write) swapped for a link to a read-only host directory while later commands start: the host directory written",
    async () => {
      // A toolchain directory the host shows read-only (`readOnlyPaths`), shaped like a git
      // directory (`hooks`, `info`) so that bwrap's binds below the swapped-in link find their sources.
      const toolchain = path.join(ground.outside, "toolchain");
      for (const name of ["hooks", "info"]) mkdirSync(path.join(toolchain, name), { recursive: true });
      const marker = path.join(toolchain, "written");
      const sandbox = new BubblewrapSandbox({ scope: "workspace", workspace: ground.workspace, readOnlyPaths: [toolchain] });
      const link = path.relative(path.join(ground.workspace, "rw"), toolchain);
      const swapper = spawnIn(
        sandbox,
        [
          "mkdir -p rw/.git/refs/heads rw/.git/hooks rw/.git/info",
          "printf 'ref: refs/heads/main\\n' > rw/.git/HEAD",
          `ln -s ${quote(link)} rw/.git.link`,
          `exec python3 -c ${quote(SWAPPER)} rw/.git rw/.git.link rw.stop ${quote(link)}`,
        ].join(" && "),
      );
      for (let tries = 0; tries < 200 && !existsSync(path.join(ground.workspace, "rw/.git.link")); tries++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      const outcomes: string[] = [];
      try {
        let started = 0;
        for (let index = 0; index < CALLS && started < STARTED; index++) {
          try {
            outcomes.push(await spawnIn(sandbox, `touch ${quote(marker)} 2>/dev/null; echo probed`));
            started++;
          } catch (error) {
            outcomes.push(`refused: ${(error as Error).message.slice(0, 100)}`);
          }
        }
      } finally {
        writeFileSync(path.join(ground.workspace, "rw.stop"), "");
      }
      expect(existsSync(marker), outcomes.join("\n")).toBe(false);
      expect(await swapper).toMatch(/swapped [1-9]\d*/);
      // Control: once the swapper stopped, commands start, read the toolchain, cannot write it,
      // and find the nested repository's hooks read-only.
      const after = await spawnIn(
        sandbox,
        `ls ${quote(toolchain)} && (touch ${quote(marker)} 2>/dev/null && echo toolchain-written || echo toolchain-read-only) && (touch rw/.git/hooks/x 2>/dev/null && echo hooks-written || echo hooks-read-only)`,
      );
      expect(after).toBe("hooks\ninfo\ntoolchain-read-only\nhooks-read-only\n");
    },
    120_000,
  );
});
