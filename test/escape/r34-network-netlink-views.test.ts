/**
 * Red team round 34: what a sandboxed command can learn of the host's network through the
 * interfaces that are allowed (netlink sockets, `/proc/net`). The sandbox permits `AF_NETLINK`
 * (`ip` and `ss` need it) and an own network namespace is what keeps the host's sockets out of
 * reach; but a namespace that were shared, or a `/proc/net` bound from the host's, would list the
 * host's listening ports, its abstract unix sockets (which any process of the namespace may
 * connect to) and its addresses. The host here listens on a 127.0.0.1 port and on an abstract and
 * a path-named unix socket; the command lists sockets through `sock_diag` (`ss`), reads
 * `/proc/net/{tcp,tcp6,unix}` and lists addresses through `rtnetlink` (`ip addr`), under
 * `workspace` and `local`. Held when no listing shows the port, either socket or an address of
 * the host's non-loopback interfaces. Control: the same listing unrestricted shows all of them.
 */
import { createServer, type Server } from "node:net";
import { networkInterfaces } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { freePort } from "../support/redis-server.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";

const bubblewrap = capability("bubblewrap");
const ABSTRACT = `atc-r34-abstract-${process.pid}`;

/** The listings a command can make of its network namespace's sockets and addresses. */
const LISTINGS = [
  "ss -xa 2>&1",
  "ss -tan 2>&1",
  "ss -uan 2>&1",
  "cat /proc/net/tcp /proc/net/tcp6 /proc/net/unix 2>&1",
  "ip -o addr 2>&1",
  "ip -o link 2>&1",
].join("; echo ==; ");

function listen(server: Server, where: { port: number; host: string } | string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => resolve());
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The host's addresses on interfaces other than loopback (what a shared namespace would show). */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => !entry.internal)
    .map((entry) => entry.address);
}

describe.skipIf(bubblewrap.missing)(
  bubblewrap.label("escape attempts: round 34, the host's sockets and addresses seen through netlink and /proc/net"),
  () => {
    let ground: Playground;
    let port: number;
    let socketPath: string;
    const servers: Server[] = [];
    beforeAll(async () => {
      ground = await playground();
      port = await freePort();
      socketPath = path.join(ground.outside, "r34-host.sock");
      const tcp = createServer();
      await listen(tcp, { port, host: "127.0.0.1" });
      const abstract = createServer();
      await listen(abstract, `\0${ABSTRACT}`);
      const named = createServer();
      await listen(named, socketPath);
      servers.push(tcp, abstract, named);
    });
    afterAll(async () => {
      for (const server of servers) await close(server);
      await ground.dispose();
    });

    escapeAttempt(
      "network",
      "list the host's listening port, abstract and path-named unix sockets and addresses (ss, ip, /proc/net) under workspace and local",
      async () => {
        const portHex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
        const addresses = hostAddresses();
        for (const scope of ["workspace", "local"] as const) {
          const listed = await sh(attackRun(ground.workspace, scope), LISTINGS);
          expect(listed.status, scope).toBe("exit code 0");
          // The listings ran (ss and ip worked: they show the namespace's own loopback).
          expect(listed.stdout, scope).toContain("lo");
          expect(listed.stdout, scope).not.toContain(ABSTRACT);
          expect(listed.stdout, scope).not.toContain("r34-host.sock");
          expect(listed.stdout, scope).not.toContain(`127.0.0.1:${port}`);
          expect(listed.stdout, scope).not.toContain(portHex);
          for (const address of addresses) expect(listed.stdout, `${scope} ${address}`).not.toContain(address);
        }
        // Control: unrestricted, the same listings show the host's sockets and addresses.
        const open = await sh(attackRun(ground.workspace, "unrestricted"), LISTINGS);
        expect(open.stdout).toContain(ABSTRACT);
        expect(open.stdout).toContain("r34-host.sock");
        expect(open.stdout).toContain(`127.0.0.1:${port}`);
        expect(open.stdout).toContain(portHex);
        for (const address of addresses) expect(open.stdout, address).toContain(address);
      },
      120_000,
    );

    escapeAttempt(
      "network",
      "configure the namespace's network (a bridge or veth link, an address, a route, lo down) to reach or disturb the host",
      async () => {
        const configure = [
          "ip link add r34b0 type bridge",
          "ip link add r34v0 type veth peer name r34v1",
          "ip link set lo up",
          "ip addr add 10.34.0.1/24 dev lo",
          "ip route add 10.35.0.0/24 dev lo",
          "ip link set lo down",
        ]
          .map((command) => `${command} 2>&1; echo "rc=$?"`)
          .join("; ");
        const after = "ip -o link; ip -o addr; ip route";
        for (const scope of ["workspace", "local"] as const) {
          const tried = await sh(attackRun(ground.workspace, scope), `${configure}; ${after}`);
          // Every change refused (the command has no CAP_NET_ADMIN in its namespace), nothing made.
          expect(tried.stdout.match(/rc=0/g), `${scope}: ${tried.stdout}`).toBeNull();
          expect(tried.stdout, scope).not.toContain("r34b0");
          expect(tried.stdout, scope).not.toContain("r34v0");
          expect(tried.stdout, scope).not.toContain("10.34.0.1");
        }
        // The host's links are as before (nothing named r34* was made there either).
        const hostLinks = await sh(attackRun(ground.workspace, "unrestricted"), "ip -o link");
        expect(hostLinks.stdout).not.toContain("r34");
        // Control: in a network namespace of its own where it holds the capability (unshare -rn, which
        // the sandbox refuses), the same commands make the links, the address and the route.
        const allowed = await sh(
          attackRun(ground.workspace, "unrestricted"),
          `unshare -rn sh -c ${JSON.stringify(`${configure}; ${after}`)}`,
        );
        expect(allowed.stdout.match(/rc=0/g)?.length, allowed.stdout).toBe(6);
        expect(allowed.stdout).toContain("r34b0");
        expect(allowed.stdout).toContain("r34v1");
        expect(allowed.stdout).toContain("10.34.0.1");
      },
      120_000,
    );
  },
);
