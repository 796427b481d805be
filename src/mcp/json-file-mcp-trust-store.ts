import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ConfigurationError } from "agent-tool-catalog";
import type { McpTrustStore } from "./mcp-trust-store.js";

interface TrustFile {
  readonly version: 1;
  readonly files: Record<string, { readonly digest: string; readonly trustedAt: string }>;
}

/**
 * A trust store in a JSON file (e.g. `~/.config/<host>/mcp-trust.json`), so a decision made once
 * (`--trust-workspace`) holds across sessions. Writes go to a temporary file that is renamed over
 * the old one, so a crash never leaves half a file; the file is created with mode 0600.
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
    let text: string;
    try {
      text = await readFile(this.filePath, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { version: 1, files: {} };
      throw error;
    }
    const parsed = safeParse(text);
    if (parsed?.version !== 1 || typeof parsed.files !== "object" || parsed.files === null) {
      throw new ConfigurationError("invalid_trust_store", `${this.filePath} is not an MCP trust file (version 1).`, {
        data: { path: this.filePath },
      });
    }
    return parsed;
  }

  private async write(data: TrustFile): Promise<void> {
    await mkdir(dirname(this.filePath), { recursive: true });
    const temporary = `${this.filePath}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(temporary, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
    await rename(temporary, this.filePath);
  }
}

function safeParse(text: string): TrustFile | undefined {
  try {
    return JSON.parse(text) as TrustFile;
  } catch {
    return undefined;
  }
}
