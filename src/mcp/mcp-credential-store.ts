import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { ConfigurationError } from "agent-tool-catalog";
import { readSmallRegularFile, replaceFileAtomically } from "./small-file.js";

/** A credential file past this is refused unread: it holds a few tokens per server. */
const MAX_CREDENTIAL_FILE_BYTES = 1024 * 1024;

/**
 * What is kept for one remote server's OAuth: the registered client, the tokens, the PKCE verifier.
 *
 * @public
 */
export interface McpCredentials {
  /** The client registration (dynamic or preconfigured). */
  readonly clientInformation?: OAuthClientInformationMixed | undefined;
  /** The tokens, with the time they were saved (to tell expiry). */
  readonly tokens?: OAuthTokens | undefined;
  /** When `tokens` were saved, ms since the epoch. */
  readonly savedAt?: number | undefined;
  /** The PKCE verifier of an authorization in progress. */
  readonly codeVerifier?: string | undefined;
}

/**
 * Where OAuth credentials of remote MCP servers are kept, by a key (the server's URL). A host's
 * keychain, a database, or {@link JsonFileMcpCredentialStore}.
 * @public
 */
export interface McpCredentialStore {
  /** The credentials kept for `key`, if any. */
  get(key: string): Promise<McpCredentials | undefined>;
  /** Replaces the credentials for `key`. */
  set(key: string, credentials: McpCredentials): Promise<void>;
  /** Forgets `key`. */
  delete(key: string): Promise<void>;
}

/**
 * A store in memory, for tests and short-lived hosts.
 *
 * @public
 */
export class InMemoryMcpCredentialStore implements McpCredentialStore {
  private readonly entries = new Map<string, McpCredentials>();
  async get(key: string): Promise<McpCredentials | undefined> {
    return this.entries.get(key);
  }
  async set(key: string, credentials: McpCredentials): Promise<void> {
    this.entries.set(key, structuredClone(credentials));
  }
  async delete(key: string): Promise<void> {
    this.entries.delete(key);
  }
}

/**
 * Credentials in one JSON file, readable and writable by the owner only (mode 0600, also enforced
 * on an existing file): tokens are secrets. Writes go to a temporary file renamed over the old
 * one, so a crash never leaves half a file; writes are serialized.
 * @public
 */
export class JsonFileMcpCredentialStore implements McpCredentialStore {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(readonly filePath: string) {}

  async get(key: string): Promise<McpCredentials | undefined> {
    await this.queue.catch(() => undefined);
    return (await this.load())[key];
  }

  set(key: string, credentials: McpCredentials): Promise<void> {
    return this.update((all) => {
      all[key] = credentials;
    });
  }

  delete(key: string): Promise<void> {
    return this.update((all) => {
      delete all[key];
    });
  }

  private update(change: (all: Record<string, McpCredentials>) => void): Promise<void> {
    const next = this.queue
      .catch(() => undefined)
      .then(async () => {
        const all = await this.load();
        change(all);
        await mkdir(dirname(this.filePath), { recursive: true, mode: 0o700 });
        await replaceFileAtomically(this.filePath, `${JSON.stringify(all, null, 2)}\n`);
      });
    this.queue = next;
    return next;
  }

  private async load(): Promise<Record<string, McpCredentials>> {
    const bytes = await readSmallRegularFile(this.filePath, { maxBytes: MAX_CREDENTIAL_FILE_BYTES, code: "invalid_mcp_config" });
    if (bytes === undefined) return {};
    try {
      const parsed: unknown = JSON.parse(bytes.toString("utf8"));
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
      return parsed as Record<string, McpCredentials>;
    } catch (error) {
      throw new ConfigurationError(
        "invalid_mcp_config",
        `${this.filePath} is not a credential file (${(error as Error).message}).`,
        {
          data: { path: this.filePath },
        },
      );
    }
  }
}
