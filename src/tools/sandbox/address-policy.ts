import { BlockList, isIP } from "node:net";

/**
 * Address ranges a sandboxed download may not reach by default: the host itself and networks
 * behind it (loopback, link-local with cloud metadata at 169.254.169.254, private, unique-local,
 * carrier-grade NAT, benchmarking, documentation, multicast, reserved) and IPv6 forms that embed
 * an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64), which would otherwise reach any of them.
 */
const PRIVATE_RANGES: readonly (readonly [string, number, "ipv4" | "ipv6"])[] = [
  ["0.0.0.0", 8, "ipv4"],
  ["10.0.0.0", 8, "ipv4"],
  ["100.64.0.0", 10, "ipv4"],
  ["127.0.0.0", 8, "ipv4"],
  ["169.254.0.0", 16, "ipv4"],
  ["172.16.0.0", 12, "ipv4"],
  ["192.0.0.0", 24, "ipv4"],
  ["192.0.2.0", 24, "ipv4"],
  ["192.88.99.0", 24, "ipv4"],
  ["192.168.0.0", 16, "ipv4"],
  ["198.18.0.0", 15, "ipv4"],
  ["198.51.100.0", 24, "ipv4"],
  ["203.0.113.0", 24, "ipv4"],
  ["224.0.0.0", 4, "ipv4"],
  ["240.0.0.0", 4, "ipv4"],
  ["::", 96, "ipv6"],
  ["::ffff:0:0", 96, "ipv6"],
  ["64:ff9b::", 96, "ipv6"],
  ["64:ff9b:1::", 48, "ipv6"],
  ["100::", 64, "ipv6"],
  ["2001:db8::", 32, "ipv6"],
  ["2002::", 16, "ipv6"],
  ["fc00::", 7, "ipv6"],
  ["fe80::", 10, "ipv6"],
  ["fec0::", 10, "ipv6"],
  ["ff00::", 8, "ipv6"],
];

// One list per family: a BlockList matches IPv4 addresses against IPv6 rules through their
// mapped form, so `::/96` in a shared list would block every IPv4 address.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
for (const [network, prefix, family] of PRIVATE_RANGES) {
  (family === "ipv4" ? blockedV4 : blockedV6).addSubnet(network, prefix, family);
}

/** Why an address is not public, or `undefined` when it is a public unicast address. */
export function nonPublicAddressReason(address: string): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return `${address} is not an IP address`;
  // A zone id (fe80::1%eth0) only exists for link-local addresses.
  if (bare.includes("%")) return `${address} is a link-local address`;
  if (family === 4 ? blockedV4.check(bare, "ipv4") : blockedV6.check(bare, "ipv6")) {
    return `${address} is a loopback, private, link-local or otherwise non-public address`;
  }
  return undefined;
}
