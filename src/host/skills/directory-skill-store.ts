import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import { formatSkillDocument, parseSkillDocument, type SkillDocument } from "./skill-document.js";
import type { BrokenSkill, ManagedSkillStore } from "./skill-store.js";

/**
 * The file of a skill inside its folder.
 *
 * @public
 */
export const SKILL_FILE_NAME = "SKILL.md";

/**
 * Skills as `<directory>/<name>/SKILL.md`, the layout other agents use too.
 *
 * @public
 */
export class DirectorySkillStore implements ManagedSkillStore {
  /** The skills directory. */
  readonly directory: string;

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** {@inheritDoc SkillStore.list} */
  async list(): Promise<{ readonly skills: readonly SkillDocument[]; readonly broken: readonly BrokenSkill[] }> {
    const entries = await readdir(this.directory, { withFileTypes: true }).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT")) return [];
      throw error;
    });
    const skills: SkillDocument[] = [];
    const broken: BrokenSkill[] = [];
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!entry.isDirectory() || !ENTITY_NAME_PATTERN.test(entry.name)) continue;
      try {
        const skill = await this.get(entry.name);
        if (skill !== undefined) skills.push(skill);
      } catch (error) {
        broken.push({ name: entry.name, error: error instanceof Error ? error.message : String(error) });
      }
    }
    return { skills, broken };
  }

  /** {@inheritDoc SkillStore.get} */
  async get(name: string): Promise<SkillDocument | undefined> {
    const text = await this.readText(name);
    return text === undefined ? undefined : parseSkillDocument(text, name);
  }

  /**
   * The raw text of a skill's file, or `undefined`.
   * @throws ToolError `invalid_skill` when its `SKILL.md` is not a regular file (a FIFO, a
   * directory) or is over 4 MiB: reported as broken, never waited on.
   */
  async readText(name: string): Promise<string | undefined> {
    try {
      if (!(await this.plainFolder(name))) return undefined;
      return await readHostTextFile(this.fileOf(name));
    } catch (error) {
      if (error instanceof UnreadableHostFileError) {
        throw new ToolError("invalid_skill", `${name}/${SKILL_FILE_NAME}: ${error.message}.`, {
          hint: "The host must replace or remove this file; pick another skill.",
        });
      }
      throw error;
    }
  }

  /** {@inheritDoc WritableSkillStore.create} */
  async create(skill: SkillDocument): Promise<void> {
    const file = this.fileOf(skill.name);
    await mkdir(path.dirname(file), { recursive: true });
    // mkdir succeeds on a link to a directory: writing through it would leave the skills directory.
    await this.plainFolder(skill.name);
    try {
      await writeTextFileAtomic(file, formatSkillDocument(skill), { exclusive: true });
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) {
        throw new ToolError("skill_exists", `A skill named "${skill.name}" exists already.`, { hint: "Pick another name." });
      }
      throw error;
    }
  }

  /** {@inheritDoc ManagedSkillStore.update} */
  async update(skill: SkillDocument): Promise<void> {
    if ((await this.readText(skill.name)) === undefined) {
      throw new ToolError("unknown_skill", `There is no skill named "${skill.name}" to update.`, {
        hint: "Create it instead, or list the skills.",
      });
    }
    await this.plainFolder(skill.name);
    await writeTextFileAtomic(this.fileOf(skill.name), formatSkillDocument(skill));
  }

  /** {@inheritDoc ManagedSkillStore.delete} */
  async delete(name: string): Promise<boolean> {
    const folder = path.dirname(this.fileOf(name));
    const stat = await lstat(folder).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT")) return undefined;
      throw error;
    });
    if (stat === undefined) return false;
    // A symlinked folder would make rm follow it out of the skills directory: refuse it.
    if (!stat.isDirectory()) {
      throw new ToolError("invalid_skill", `Skill folder "${name}" is not a plain directory; it is left alone.`);
    }
    await rm(folder, { recursive: true, force: true });
    return true;
  }

  /**
   * Whether a skill's folder exists as a plain directory; a symbolic link or a file in its place
   * is refused (`invalid_skill`): the skills directory may be in the workspace, where a sandboxed
   * command can link a skill's folder to any directory of the host.
   */
  private async plainFolder(name: string): Promise<boolean> {
    const folder = path.dirname(this.fileOf(name));
    const stat = await lstat(folder).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return undefined;
      throw error;
    });
    if (stat === undefined) return false;
    if (!stat.isDirectory()) {
      throw new ToolError("invalid_skill", `Skill folder "${name}" is not a plain directory (a symbolic link is not followed).`, {
        hint: "The host must replace it with a directory; pick another skill.",
      });
    }
    return true;
  }

  /** A path inside a skill's folder (its file, its verification record). */
  pathOf(name: string, file: string): string {
    const folder = path.join(this.directory, checkEntityName("Skill", name));
    if (path.dirname(folder) !== this.directory)
      throw new ToolError("invalid_name", `Skill name ${JSON.stringify(name)} leaves the skills directory.`);
    return path.join(folder, file);
  }

  private fileOf(name: string): string {
    return this.pathOf(name, SKILL_FILE_NAME);
  }
}
