/**
 * Escape attempts through file descriptors: the host process holds descriptors without
 * close-on-exec (a log file, a socket), and a sandboxed command tries to use them. The host is a
 * real child process started with those descriptors; the control runs the same command
 * unsandboxed in the same host, where the descriptors are usable.
 */
import { closeSync, openSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { spawnNode } from "../support/child-entry.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, quote, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
// Plain node on the build when it is current (test/support/child-entry.ts): 13 hosts start.
const HOST = path.join(import.meta.dirname, "support", "inherited-fd-host.mjs");

describe.skipIf(bubblewrap.missing)(bubblewrap.label("escape attempts: descriptors"), () => {
  let ground: Playground;
  let server: Server;
  let received = "";
  let socketPath: string;
  beforeAll(async () => {
    ground = await playground();
    socketPath = path.join(ground.outside, "host.sock");
    server = createServer((socket) => socket.on("data", (chunk) => (received += String(chunk))));
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  });
  afterAll(async () => {
    server.close();
    await ground.dispose();
  });

  /** Runs `command` in a host child process that holds the inherited descriptors. */
  async function withInherited(scope: "workspace" | "local" | "unrestricted", command: string) {
    const logPath = path.join(ground.outside, `log-${scope}-${Math.random().toString(36).slice(2)}.txt`);
    await writeFile(logPath, "original\n");
    const fileFd = openSync(logPath, "a+");
    const client: Socket = connect(socketPath);
    await new Promise<void>((resolve) => client.once("connect", () => resolve()));
    // Node marks the low inherited descriptors of its own process close-on-exec at start-up (so
    // fds 3-19 would not test anything); a descriptor above them stays inheritable, as one opened
    // by a native addon or a supervisor would.
    const stdio: (string | number | Socket)[] = ["ignore", "pipe", "pipe"];
    while (stdio.length < 20) stdio.push("ignore");
    stdio.push(fileFd, client, "ignore", "ignore", "ignore", fileFd);
    received = "";
    const child = spawnNode(HOST, [scope, ground.workspace, command], {
      stdio: stdio as never,
    });
    let out = "";
    child.stdout?.on("data", (chunk) => (out += String(chunk)));
    child.stderr?.on("data", (chunk) => (out += String(chunk)));
    await new Promise((resolve) => child.once("exit", resolve));
    closeSync(fileFd);
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.destroy();
    let parsed: { kind: string; stdout: string; stderr: string };
    try {
      parsed = JSON.parse(out);
    } catch {
      throw new Error(`host failed: ${out}`);
    }
    return { ...parsed, log: readFileSync(logPath, "utf8"), socket: received };
  }

  escapeAttempt(
    "descriptors",
    "write an inherited file descriptor (fd 20)",
    async () => {
      const denied = await withInherited("workspace", "echo pwned >&20");
      expect(denied.kind).toBe("bubblewrap");
      expect(denied.log).toBe("original\n");
      expect((await withInherited("unrestricted", "echo pwned >&20")).log).toContain("pwned");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "write an inherited file descriptor under scope local (fd 25)",
    async () => {
      const denied = await withInherited("local", "echo pwned >&25");
      expect(denied.kind).toBe("bubblewrap");
      expect(denied.log).toBe("original\n");
      expect((await withInherited("unrestricted", "echo pwned >&25")).log).toContain("pwned");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "re-open an inherited file through /proc/self/fd",
    async () => {
      const attack = "cat /proc/self/fd/20; echo pwned > /proc/self/fd/20";
      const denied = await withInherited("workspace", attack);
      expect(denied.stdout).not.toContain("original");
      expect(denied.log).toBe("original\n");
      expect((await withInherited("unrestricted", attack)).stdout).toContain("original");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "send on an inherited unix socket to a host daemon (fd 21)",
    async () => {
      expect((await withInherited("workspace", "echo pwned >&21")).socket).toBe("");
      expect((await withInherited("unrestricted", "echo pwned >&21")).socket).toContain("pwned");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "list descriptors: only 0, 1, 2 reach the command (local scope too)",
    async () => {
      // exec: ls lists its own descriptors (plus the one it reads the directory with).
      const list = "exec ls /proc/self/fd";
      for (const scope of ["workspace", "local"] as const) {
        const listing = await withInherited(scope, list);
        expect(
          listing.stdout
            .trim()
            .split("\n")
            .map(Number)
            .sort((a, b) => a - b),
        ).toEqual([0, 1, 2, 3]);
      }
      expect((await withInherited("unrestricted", list)).stdout.split("\n")).toContain("21");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "scan descriptors for inherited sockets to pass over a socketpair",
    async () => {
      const script = [
        "import os, socket, array",
        "found = []",
        "for fd in range(3, 64):",
        "    try:",
        "        s = socket.socket(fileno=os.dup(fd))",
        "        a, b = socket.socketpair()",
        "        a.sendmsg([b'x'], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array('i', [s.fileno()]))])",
        "        s.send(b'pwned')",
        "        found.append(fd)",
        "    except Exception:",
        "        pass",
        "print('found', found)",
      ].join("\n");
      const command = `/usr/bin/python3 -c ${quote(script)}`;
      const denied = await withInherited("workspace", command);
      expect(denied.stdout).toContain("found []");
      expect(denied.socket).toBe("");
      const control = await withInherited("unrestricted", command);
      expect(control.socket).toContain("pwned");
    },
    60_000,
  );

  escapeAttempt(
    "descriptors",
    "connect to a host unix socket visible in the workspace",
    async () => {
      const inside = path.join(ground.workspace, "daemon.sock");
      const daemon = createServer((socket) => socket.on("data", (chunk) => (received += String(chunk))));
      await new Promise<void>((resolve) => daemon.listen(inside, resolve));
      try {
        const script = `import socket; s = socket.socket(socket.AF_UNIX); s.connect(${JSON.stringify(inside)}); s.send(b"pwned")`;
        received = "";
        await sh(attackRun(ground.workspace, "workspace"), `/usr/bin/python3 -c ${quote(script)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(received).toBe("");
        await sh(attackRun(ground.workspace, "unrestricted"), `/usr/bin/python3 -c ${quote(script)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(received).toContain("pwned");
      } finally {
        daemon.close();
      }
    },
    60_000,
  );
});
