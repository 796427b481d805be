/**
 * Remembers which project MCP config files the user trusts, by path and SHA-256 digest of their
 * bytes. A file that changes has a new digest and is untrusted again: a pull that edits
 * `.mcp.json` cannot start a new command without the user seeing it.
 * @public
 */
export interface McpTrustStore {
  /** True when the file at `path` was trusted with exactly this digest. */
  isTrusted(path: string, digest: string): boolean | Promise<boolean>;
  /** Trusts the file at `path` with this digest (replacing what was trusted for it before). */
  trust(path: string, digest: string): void | Promise<void>;
  /** Forgets the trust in the file at `path`. */
  revoke(path: string): void | Promise<void>;
}

/**
 * A trust store that lives as long as the process: for tests and one-shot hosts.
 *
 * @public
 */
export class InMemoryMcpTrustStore implements McpTrustStore {
  private readonly trusted = new Map<string, string>();

  /** {@inheritDoc McpTrustStore.isTrusted} */
  isTrusted(path: string, digest: string): boolean {
    return this.trusted.get(path) === digest;
  }

  /** {@inheritDoc McpTrustStore.trust} */
  trust(path: string, digest: string): void {
    this.trusted.set(path, digest);
  }

  /** {@inheritDoc McpTrustStore.revoke} */
  revoke(path: string): void {
    this.trusted.delete(path);
  }
}
