import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigurationError } from "agent-tool-catalog";
import type { McpTrustStore } from "./mcp-trust-store.js";
import { readSmallRegularFile, replaceFileAtomically } from "./small-file.js";

/** A trust file past this is refused, not read: it holds one short line per trusted workspace. */
const MAX_TRUST_FILE_BYTES = 8 * 1024 * 1024;

interface TrustFile {
  readonly version: 1;
  readonly files: Record<string, { readonly digest: string; readonly trustedAt: string }>;
}

/**
 * A trust store in a JSON file (e.g. `~/.config/<host>/mcp-trust.json`), so a decision made once
 * (`--trust-workspace`) holds across sessions. Writes go to a temporary file that is renamed over
 * the old one, so a crash never leaves half a file, and a failed write (full disk) leaves no temporary
 * file behind; the file is created with mode 0600. Only a regular file of at most 8 MiB is read: a
 * FIFO, a device or a larger file there is an `invalid_trust_store` error, never a hang.
 * @public
 */
export class JsonFileMcpTrustStore implements McpTrustStore {
  private pending: Promise<void> = Promise.resolve();

  constructor(
    /** Where the decisions are kept. */
    readonly filePath: string,
    /** When a decision is made, for the record. @defaultValue the system clock */
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** {@inheritDoc McpTrustStore.isTrusted} */
  async isTrusted(path: string, digest: string): Promise<boolean> {
    const data = await this.read();
    return Object.hasOwn(data.files, path) && data.files[path]?.digest === digest;
  }

  /** {@inheritDoc McpTrustStore.trust} */
  trust(path: string, digest: string): Promise<void> {
    return this.update((files) => ({ ...files, [path]: { digest, trustedAt: this.clock().toISOString() } }));
  }

  /** {@inheritDoc McpTrustStore.revoke} */
  revoke(path: string): Promise<void> {
    return this.update((files) => {
      const { [path]: _removed, ...rest } = files;
      return rest;
    });
  }

  // Read-modify-write in turn, so two decisions of this process never overwrite each other.
  private update(change: (files: TrustFile["files"]) => TrustFile["files"]): Promise<void> {
    const next = this.pending
      .catch(() => undefined)
      .then(async () => {
        const data = await this.read();
        await this.write({ version: 1, files: change(data.files) });
      });
    this.pending = next;
    return next;
  }

  private async read(): Promise<TrustFile> {
    const bytes = await readSmallRegularFile(this.filePath, { maxBytes: MAX_TRUST_FILE_BYTES, code: "invalid_trust_store" });
    if (bytes === undefined) return { version: 1, files: {} };
    const parsed = safeParse(bytes.toString("utf8"));
    if (parsed?.version !== 1 || typeof parsed.files !== "object" || parsed.files === null) {
      throw new ConfigurationError("invalid_trust_store", `${this.filePath} is not an MCP trust file (version 1).`, {
        data: { path: this.filePath },
      });
    }
    return parsed;
  }

  private async write(data: TrustFile): Promise<void> {
    await mkdir(dirname(this.filePath), { recursive: true });
    await replaceFileAtomically(this.filePath, `${JSON.stringify(data, null, 2)}\n`);
  }
}

function safeParse(text: string): TrustFile | undefined {
  try {
    return JSON.parse(text) as TrustFile;
  } catch {
    return undefined;
  }
}
