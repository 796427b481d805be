import { lstat, mkdir, readdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";

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

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** {@inheritDoc PromptExtensionStore.list} */
  async list(): Promise<readonly PromptExtension[]> {
    const out: PromptExtension[] = [];
    for (const kind of ["behavior", "talent"] as const) {
      const folder = path.join(this.directory, FOLDERS[kind]);
      // A linked kind folder is skipped like a linked file: nothing is read through it.
      const names = (await plainFolder(folder))
        ? await readdir(folder).catch((error: unknown) => {
            if (hasErrorCode(error, "ENOENT")) return [] as string[];
            throw error;
          })
        : [];
      for (const file of names) {
        const name = file.replace(/\.md$/, "");
        if (!file.endsWith(".md") || !ENTITY_NAME_PATTERN.test(name)) continue;
        // A FIFO, a directory or an oversized file is skipped like one that does not parse.
        const text = await readHostTextFile(path.join(folder, file)).catch((error: unknown) => {
          if (error instanceof UnreadableHostFileError) return undefined;
          throw error;
        });
        const parsed = text === undefined ? undefined : parseExtension(text, kind, name);
        if (parsed !== undefined) out.push(parsed);
      }
    }
    return out.sort(byKindAndName);
  }

  /** {@inheritDoc PromptExtensionStore.create} */
  async create(extension: PromptExtension): Promise<void> {
    const folder = path.join(this.directory, FOLDERS[extension.kind]);
    const file = path.join(folder, `${checkEntityName("Prompt extension", extension.name)}.md`);
    await mkdir(folder, { recursive: true });
    // mkdir succeeds on a link to a directory; the directory may be in the workspace, where a
    // sandboxed command can plant one, and the write would land wherever it points.
    if (!(await plainFolder(folder))) {
      throw new ToolError(
        "symlink_refused",
        `The ${FOLDERS[extension.kind]} folder of the prompt extensions is a symbolic link, which is not followed.`,
        {
          hint: "The host must replace it with a directory.",
        },
      );
    }
    const front = stringifyYaml({
      description: extension.description,
      ...(extension.createdBy ? { "created-by": extension.createdBy } : {}),
    });
    try {
      await writeTextFileAtomic(file, `---\n${front}---\n\n${extension.content.trim()}\n`, { exclusive: true });
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) throw exists(extension);
      throw error;
    }
  }
}

/** True when `folder` is a directory itself, not a link to one (false when absent or a link). */
async function plainFolder(folder: string): Promise<boolean> {
  const stat = await lstat(folder).catch((error: unknown) => {
    if (hasErrorCode(error, "ENOENT")) return undefined;
    throw error;
  });
  return stat?.isDirectory() === true;
}

function parseExtension(text: string, kind: PromptExtensionKind, name: string): PromptExtension | undefined {
  const match = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  if (match === null) return undefined;
  try {
    const data = parseYaml(match[1] ?? "") as Record<string, unknown> | null;
    if (data === null || typeof data.description !== "string") return undefined;
    const createdBy = typeof data["created-by"] === "string" ? data["created-by"] : undefined;
    return { kind, name, description: data.description, content: text.slice(match[0].length).trim(), createdBy };
  } catch {
    return undefined;
  }
}
