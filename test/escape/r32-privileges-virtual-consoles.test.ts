/**
 * Red team round 32: the host's virtual consoles. Round 15 tried the host's pseudo-terminal
 * (TIOCSTI, `/dev/tty`); a machine with virtual consoles has more: `TIOCLINUX` on `/dev/tty0` or
 * `/dev/ttyN` pastes the console's selection into its input (subcode 3: typing into whatever
 * shell is logged in there) and reports its state, and `/dev/vcs*` hold each console's screen
 * text. A sandboxed command tries to open each of them and `TIOCLINUX` (subcode 6, get shift state:
 * a harmless read that answers only on a console) on them and on its own descriptors 0-2.
 * Held when, under `workspace` and `local`: none of the devices exists in the sandbox's `/dev`
 * (bwrap's own) and every ioctl fails. Control: on the host (as root, where the devices exist) the
 * same program opens `/dev/tty0` and its `TIOCLINUX` answers, and `/dev/vcs` is read.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const DEVICES = ["/dev/tty0", "/dev/tty1", "/dev/tty63", "/dev/console", "/dev/vcs", "/dev/vcsa", "/dev/vcs1", "/dev/vcsu"];

/** For each device: opened or why not, then TIOCLINUX (0x541C) subcode 6 on it; then on fds 0-2. */
const PROBE = `for my $d (@ARGV) {
  if (open(my $f, "+<", $d) or open($f, "<", $d)) {
    my $b = pack("C x31", 6); my $r = ioctl($f, 0x541C, $b);
    print "$d open tioclinux:", (defined $r ? "ok" : "fail"), "\\n";
  } else { print "$d absent:$!\\n" }
}
for my $n (0, 1, 2) {
  open(my $f, "+<&=", $n) or next; my $b = pack("C x31", 6);
  print "fd$n tioclinux:", (defined ioctl($f, 0x541C, $b) ? "ok" : "fail"), "\\n";
}`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: round 32, the host's virtual consoles"), () => {
  let ground: Playground;
  beforeAll(async () => {
    ground = await playground();
  });
  afterAll(async () => ground.dispose());

  escapeAttempt(
    "privileges",
    "open the host's virtual consoles (/dev/tty0, ttyN, console, vcs*) and TIOCLINUX on them and on fds 0-2 (workspace, local)",
    async () => {
      const command = `perl -e ${quote(PROBE)} ${DEVICES.join(" ")}`;
      for (const scope of ["workspace", "local"] as const) {
        const lines = (await sh(attackRun(ground.workspace, scope), command)).stdout.trim().split("\n");
        expect(
          lines.filter((line) => line.includes(" open ") || line.endsWith(":ok")),
          scope,
        ).toEqual([]);
        expect(
          lines.filter((line) => line.includes(" absent:No such file or directory")),
          scope,
        ).toHaveLength(DEVICES.length);
      }
      // Control: where the host has consoles and this process may use them, the same program reaches them.
      if (process.getuid?.() === 0 && existsSync("/dev/tty0")) {
        const host = execFileSync("bash", ["-c", command], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
        expect(host).toContain("/dev/tty0 open tioclinux:ok");
        expect(host).toMatch(/\/dev\/vcs open/);
      }
    },
    60_000,
  );
});
