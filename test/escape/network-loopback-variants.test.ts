/**
 * Escape attempts at the host's loopback services by other routes than `connect(127.0.0.1)`
 * (which `network-sandbox.test.ts` tries): a real `redis-server` on the host's 127.0.0.1 reached
 * through the any-address `0.0.0.0` (which Linux connects to the local host), an IPv4-mapped
 * IPv6 address on an `AF_INET6` socket, and TCP Fast Open (`sendto(MSG_FASTOPEN)`, which connects
 * without `connect()`); and the host's listening sockets looked up with `sock_diag` over netlink
 * (a family the filter allows), as `ss -ltn` lists them. Each works unsandboxed.
 */
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { capability } from "../support/capabilities.js";
import { useRedisServer } from "../support/redis-server.js";
import { escapeAttempt } from "./support/escape-attempt.js";
import { attackRun, type Playground, playground, sh } from "./support/sandbox-harness.js";
import { compileProbes } from "./support/syscall-probes.js";

const bubblewrap = capability("bubblewrap");
const cc = capability("cc");
const redis = capability("redis");

describe.skipIf(bubblewrap.missing || cc.missing || redis.missing)(
  bubblewrap.label(cc.label(redis.label("escape attempts: the host's loopback services by other routes"))),
  () => {
    let ground: Playground;
    const server = useRedisServer();
    beforeAll(async () => {
      ground = await playground();
      compileProbes(path.join(ground.workspace, "probes"));
    }, 60_000);
    afterAll(async () => {
      await ground.dispose();
    });
    const probe = async (scope: "workspace" | "local" | "unrestricted", name: string) =>
      (await sh(attackRun(ground.workspace, scope), `./probes ${name} ${server.port}`)).stdout.split("\n");

    escapeAttempt("network", "redis on 127.0.0.1 through 0.0.0.0, ::ffff:127.0.0.1 and TCP Fast Open", async () => {
      for (const scope of ["workspace", "local"] as const) {
        const lines = await probe(scope, "redis-variants");
        expect(lines.map((line) => line.split(":")[0])).toEqual(["any-address", "v4-mapped", "fast-open"]);
        // Refused (111) by the sandbox's own empty loopback, or unreachable: never a reply.
        for (const line of lines) expect(line).toMatch(/:errno=(111|101|113)$/);
      }
      expect(await probe("unrestricted", "redis-variants")).toEqual(["any-address:+PONG", "v4-mapped:+PONG", "fast-open:+PONG"]);
    });

    escapeAttempt("network", "list the host's listening sockets with sock_diag (netlink is allowed)", async () => {
      for (const scope of ["workspace", "local"] as const)
        expect(await probe(scope, "diag-listener")).toEqual(["diag-listener:unlisted"]);
      expect(await probe("unrestricted", "diag-listener")).toEqual(["diag-listener:listed"]);
    });
  },
);
