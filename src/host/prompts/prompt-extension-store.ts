import { readdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import type * as Yaml from "yaml";
import { loadOnDemand } from "../../tool/load-on-demand.js";
import type { VerifiedDirectory } from "../../tools/fs/verified-directory.js";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import { PinnedHostDirectory } from "../shared/pinned-host-directory.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const yaml = loadOnDemand<typeof Yaml>("yaml");

/**
 * The two kinds of prompt extension: a behavior changes how the agent works (always on once
 * installed, e.g. "run the tests before saying done"); a talent is know-how for one kind of
 * task, included when the task calls for it.
 * @public
 */
export type PromptExtensionKind = "behavior" | "talent";

/**
 * A prompt extension: a named piece of system prompt.
 *
 * @public
 */
export interface PromptExtension {
  /** Its kind. */
  readonly kind: PromptExtensionKind;
  /** Its name: lower-case letters, digits, `-` and `_`. */
  readonly name: string;
  /** One line: what it does, or when it applies. */
  readonly description: string;
  /** The prompt text itself (Markdown). */
  readonly content: string;
  /** The conversation that created it, when known. */
  readonly createdBy?: string | undefined;
}

/**
 * Where prompt extensions are kept. The host decides when they reach the system prompt (for
 * example behaviors always, talents by relevance); the library only stores them.
 * @public
 */
export interface PromptExtensionStore {
  /** Every extension, by kind then name. */
  list(): Promise<readonly PromptExtension[]>;
  /** Adds one; rejects with `ToolError` `prompt_extension_exists` when the kind and name are taken. */
  create(extension: PromptExtension): Promise<void>;
}

/**
 * A prompt extension entry that cannot be read: a linked `behaviors/` or `talents/` folder (`name`
 * is the folder), or a file that is not a regular file or is too big.
 * @public
 */
export interface BrokenPromptExtension {
  /** The kind whose folder or file it is. */
  readonly kind: PromptExtensionKind;
  /** The extension's name, or the folder's (`behaviors`, `talents`). */
  readonly name: string;
  /** What is wrong with it. */
  readonly error: string;
}

const key = (extension: Pick<PromptExtension, "kind" | "name">) => `${extension.kind}/${extension.name}`;
const byKindAndName = (a: PromptExtension, b: PromptExtension) => key(a).localeCompare(key(b));

function exists(extension: PromptExtension): ToolError {
  return new ToolError("prompt_extension_exists", `A ${extension.kind} named "${extension.name}" exists already.`, {
    hint: "Pick another name.",
  });
}

/**
 * Prompt extensions in memory: the default, so `create_prompt_extension` is always there.
 *
 * @public
 */
export class InMemoryPromptExtensionStore implements PromptExtensionStore {
  private readonly extensions = new Map<string, PromptExtension>();

  /** {@inheritDoc PromptExtensionStore.list} */
  async list(): Promise<readonly PromptExtension[]> {
    return [...this.extensions.values()].sort(byKindAndName);
  }

  /** {@inheritDoc PromptExtensionStore.create} */
  async create(extension: PromptExtension): Promise<void> {
    if (this.extensions.has(key(extension))) throw exists(extension);
    this.extensions.set(key(extension), Object.freeze({ ...extension }));
  }
}

const FOLDERS: Readonly<Record<PromptExtensionKind, string>> = { behavior: "behaviors", talent: "talents" };

/**
 * Prompt extensions as files: `<directory>/behaviors/<name>.md` and `<directory>/talents/<name>.md`,
 * each with a YAML front matter (`description`) above the prompt text. Files that do not parse,
 * and entries that are not regular files (a FIFO, a directory) or are over 4 MiB, are skipped.
 * @public
 */
export class DirectoryPromptExtensionStore implements PromptExtensionStore {
  /** The directory. */
  readonly directory: string;

  private readonly pinned: PinnedHostDirectory;

  /**
   * @param directory - The prompt extensions directory.
   * @param anchor - The folder the host trusts, at or above `directory`: resolved once (a link
   * the host set up is followed then); no folder from it down may be a link. @defaultValue `directory`
   */
  constructor(directory: string, anchor?: string) {
    this.directory = path.resolve(directory);
    this.pinned = new PinnedHostDirectory(this.directory, anchor);
  }

  /** {@inheritDoc PromptExtensionStore.list} */
  async list(): Promise<readonly PromptExtension[]> {
    return (await this.listWithBroken()).extensions;
  }

  /**
   * What {@link DirectoryPromptExtensionStore.list} skips, so the host can show it: a `behaviors/`
   * or `talents/` folder that is a symbolic link (a GNU stow setup, or one a sandboxed command
   * planted; nothing is read through it), and files that are not regular files or too big.
   */
  async broken(): Promise<readonly BrokenPromptExtension[]> {
    return (await this.listWithBroken()).broken;
  }

  private async listWithBroken(): Promise<{ extensions: PromptExtension[]; broken: BrokenPromptExtension[] }> {
    const extensions: PromptExtension[] = [];
    const broken: BrokenPromptExtension[] = [];
    for (const kind of ["behavior", "talent"] as const) {
      let folder: VerifiedDirectory | undefined;
      try {
        folder = await this.pinned.open([FOLDERS[kind]], false);
      } catch (error) {
        // A linked kind folder is not read through, but reported rather than listed as empty.
        if (error instanceof ToolError && error.code === "symlink_refused") {
          broken.push({ kind, name: FOLDERS[kind], error: error.message });
          continue;
        }
        throw error;
      }
      if (folder === undefined) continue;
      try {
        for (const file of await readdir(folder.at("."))) {
          const name = file.replace(/\.md$/, "");
          if (!file.endsWith(".md") || !ENTITY_NAME_PATTERN.test(name)) continue;
          // A FIFO, a directory or an oversized file is skipped like one that does not parse.
          const text = await readHostTextFile(folder.at(file)).catch((error: unknown) => {
            if (!(error instanceof UnreadableHostFileError)) throw error;
            broken.push({ kind, name, error: error.message });
            return undefined;
          });
          const parsed = text === undefined ? undefined : parseExtension(text, kind, name);
          if (parsed !== undefined) extensions.push(parsed);
        }
      } finally {
        await folder.close();
      }
    }
    return { extensions: extensions.sort(byKindAndName), broken };
  }

  /** {@inheritDoc PromptExtensionStore.create} */
  async create(extension: PromptExtension): Promise<void> {
    const file = `${checkEntityName("Prompt extension", extension.name)}.md`;
    // Through handles opened without following links from the pinned anchor: the directory may be
    // in the workspace, where a sandboxed command can plant a link (the kind folder, or above it).
    const folder = await this.pinned.open([FOLDERS[extension.kind]], true);
    if (folder === undefined) throw new Error(`The ${FOLDERS[extension.kind]} folder vanished while it was made.`);
    const front = yaml().stringify({
      description: extension.description,
      ...(extension.createdBy ? { "created-by": extension.createdBy } : {}),
    });
    try {
      await writeTextFileAtomic(folder.at(file), `---\n${front}---\n\n${extension.content.trim()}\n`, { exclusive: true });
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) throw exists(extension);
      throw error;
    } finally {
      await folder.close();
    }
  }
}

function parseExtension(text: string, kind: PromptExtensionKind, name: string): PromptExtension | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  try {
    const data = yaml().parse(match[1] ?? "") as Record<string, unknown> | null;
    if (data === null || typeof data.description !== "string") return undefined;
    const createdBy = typeof data["created-by"] === "string" ? data["created-by"] : undefined;
    return { kind, name, description: data.description, content: text.slice(match[0].length).trim(), createdBy };
  } catch {
    return undefined;
  }
}
