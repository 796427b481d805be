// A run's id is made at `createRun`, before anything else in a new process needs randomness.
// `globalThis.crypto.randomUUID()` loads node's whole Web Crypto layer for it (about 24 million
// instructions, a tenth of what this package adds to a new process that calls one git tool);
// `node:crypto`'s own `randomUUID`, the same CSPRNG, about half of that. It is reached through
// `process.getBuiltinModule` so that the root entry still imports no `node:` module.

interface RandomUuidSource {
  randomUUID?: () => string;
}

/** A new run id: a random (version 4) UUID from node's CSPRNG, or the platform's Web Crypto elsewhere. */
export function randomRunId(): string {
  const nodeCrypto = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.(
    "node:crypto",
  ) as RandomUuidSource | undefined;
  return nodeCrypto?.randomUUID?.() ?? crypto.randomUUID();
}
