/**
 * Escape attempts through socket kinds the network namespace does not cut: a unix *datagram*
 * socket pair (allowed pairs are for Node's child pipes) used to `sendto()` a host daemon's
 * datagram socket file, the same with `SOCK_RAW` (which unix sockets turn into datagrams), and
 * `AF_VSOCK`, which from a virtual machine reaches the hypervisor whatever the network namespace.
 * The daemon is a real process on the host bound to a socket file in the workspace (visible to
 * both sandboxed scopes). Controls: the same commands unsandboxed reach it, and a stream pair
 * (what Node needs) still works inside the sandbox.
 */
import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { stopProcess } from "../support/stop-process.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");

/** A host daemon: prints every datagram its socket file receives. */
const DAEMON = `use Socket; socket(my $s, AF_UNIX, SOCK_DGRAM, 0) or die "socket: $!";
bind($s, pack_sockaddr_un($ARGV[0])) or die "bind: $!"; $| = 1; print "ready\\n";
while (defined recv($s, my $m, 200, 0)) { print "GOT $m\\n" }`;

/** Makes a unix socket pair of `type` and sends `message` to the socket file `target` through it. */
const sendThroughPair = (type: string, target: string, message: string) =>
  `perl -e ${quote(`use Socket; socketpair(my $a, my $b, AF_UNIX, ${type}, 0) or do { print "pair: $!\\n"; exit 0 };
my $n = send($a, "${message}", 0, pack_sockaddr_un("${target}")); print defined $n ? "sent\\n" : "send: $!\\n";
connect($a, pack_sockaddr_un("${target}")) and send($a, "${message}-connected", 0) and print "connected\\n";`)}`;

const VSOCK = `perl -e ${quote('socket(my $s, 40, 1, 0) ? print "vsock created\\n" : print "vsock: $!\\n"')}`;

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: socket families"), () => {
  let ground: Playground;
  let daemon: ChildProcess;
  let received = "";
  let socketPath: string;
  beforeAll(async () => {
    ground = await playground();
    socketPath = path.join(ground.workspace, "daemon.sock");
    daemon = spawn("perl", ["-e", DAEMON, socketPath], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      daemon.once("error", reject);
      daemon.stdout?.on("data", (chunk: Buffer) => {
        received += String(chunk);
        if (received.includes("ready")) resolve();
      });
    });
  });
  afterAll(async () => {
    // Waited for: until it has exited it holds its socket in the workspace that dispose removes.
    await stopProcess(daemon);
    await ground.dispose();
  });

  escapeAttempt("network", "a unix datagram (and raw) socket pair sends to a host daemon's socket file", async () => {
    for (const scope of ["workspace", "local"] as const) {
      const run = attackRun(ground.workspace, scope);
      for (const type of ["SOCK_DGRAM", "SOCK_RAW"]) {
        const attack = await sh(run, sendThroughPair(type, socketPath, `attack-${scope}-${type}`));
        expect(attack.stdout).toContain("pair: Operation not permitted");
      }
      // What Node's child pipes need still works.
      const stream = await sh(run, sendThroughPair("SOCK_STREAM", socketPath, `stream-${scope}`));
      expect(stream.stdout).not.toContain("pair:");
    }
    const control = await sh(attackRun(ground.workspace, "unrestricted"), sendThroughPair("SOCK_DGRAM", socketPath, "control"));
    expect(control.stdout).toContain("sent");
    await expect.poll(() => received, { timeout: 1000 }).toContain("GOT control");
    expect(received).not.toContain("attack-");
    expect(received).not.toContain("stream-");
  });

  escapeAttempt("network", "an AF_VSOCK socket (the hypervisor, outside any network namespace) is refused", async () => {
    for (const scope of ["workspace", "local"] as const) {
      expect((await sh(attackRun(ground.workspace, scope), VSOCK)).stdout).toContain("vsock: Operation not permitted");
    }
    // Unsandboxed the kernel decides: created on a VM with virtio-vsock, "not supported" elsewhere; never our EPERM.
    expect((await sh(attackRun(ground.workspace, "unrestricted"), VSOCK)).stdout).not.toContain("Operation not permitted");
  });

  escapeAttempt("network", "a host daemon's abstract-namespace unix socket (no file to hide)", async () => {
    // Abstract sockets have no path a mount can hide: only the network namespace and the
    // system-call filter stand between a command and, say, a D-Bus or X11 abstract socket.
    const name = `atc-abstract-${process.pid}-${Math.random().toString(36).slice(2)}`;
    let got = "";
    // The daemon packs its name the way the client does (perl's pack_sockaddr_un: the whole
    // sun_path, so both sides name the same abstract address).
    const daemonCode = `use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0) or die "socket: $!";
bind($s, pack_sockaddr_un("\\0" . $ARGV[0])) or die "bind: $!"; listen($s, 5) or die; $| = 1; print "ready\\n";
while (accept(my $c, $s)) { while (defined(my $line = <$c>)) { print "GOT $line" } }`;
    const server = spawn("perl", ["-e", daemonCode, name], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.stdout?.on("data", (chunk: Buffer) => {
        got += String(chunk);
        if (got.includes("ready")) resolve();
      });
    });
    try {
      const connect = (message: string) =>
        `perl -e ${quote(`use Socket; my $addr = pack_sockaddr_un("\\0${name}");
if (socket(my $s, AF_UNIX, SOCK_STREAM, 0)) { if (connect($s, $addr)) { send($s, "${message}\\n", 0); print "connected\\n" } else { print "connect: $!\\n" } } else { print "socket: $!\\n" }
socketpair(my $a, my $b, AF_UNIX, SOCK_STREAM, 0) or die; print connect($a, $addr) ? "pair connected\\n" : "pair connect: $!\\n";`)}`;
      for (const scope of ["workspace", "local"] as const) {
        const attack = await sh(attackRun(ground.workspace, scope), connect(`attack-${scope}`));
        expect(attack.stdout).toContain("socket: Operation not permitted");
        expect(attack.stdout).not.toMatch(/^(pair )?connected$/m);
        expect(attack.stdout).toMatch(/pair connect: /);
      }
      const control = await sh(attackRun(ground.workspace, "unrestricted"), connect("control"));
      expect(control.stdout).toMatch(/^connected$/m);
      await expect.poll(() => got, { timeout: 1000 }).toContain("control");
      expect(got).not.toContain("attack-");
    } finally {
      await stopProcess(server);
    }
  });
});
