import type { Dirent } from "node:fs";
import { lstat, mkdir, readdir, rmdir } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { LinkOnTheWay, openVerifiedDirectory, type VerifiedDirectory } from "../../tools/fs/verified-directory.js";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import { PinnedHostDirectory, removeTreeNoFollow } from "../shared/pinned-host-directory.js";
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
  private readonly pinned: PinnedHostDirectory;

  /**
   * @param directory - The skills directory.
   * @param anchor - The folder the host trusts, at or above `directory`: it is resolved once (a
   * link the host set up is followed then) and no folder from it down to a skill may be a link.
   * Defaults to the workspace for `workspaceSkillsDirectory(...)`, else `directory` itself.
   */
  constructor(directory: string, anchor?: string) {
    this.directory = path.resolve(directory);
    this.pinned = new PinnedHostDirectory(this.directory, anchor);
  }

  /** {@inheritDoc SkillStore.list} */
  async list(): Promise<{ readonly skills: readonly SkillDocument[]; readonly broken: readonly BrokenSkill[] }> {
    let entries: Dirent[];
    try {
      const root = await this.pinned.open([], false);
      if (root === undefined) return { skills: [], broken: [] };
      try {
        entries = await readdir(root.at("."), { withFileTypes: true });
      } finally {
        await root.close();
      }
    } catch (error) {
      // The skills directory itself linked or swapped: one visible broken entry, not an empty list.
      if (error instanceof ToolError && error.code === "symlink_refused") {
        return { skills: [], broken: [{ name: path.basename(this.directory), error: error.message }] };
      }
      throw error;
    }
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
   * directory) or is over 4 MiB, or its folder is a link: reported as broken, never waited on.
   * @throws ToolError `symlink_refused` when the skills directory (or a folder above it, up to
   * the anchor) is a link.
   */
  async readText(name: string): Promise<string | undefined> {
    this.fileOf(name);
    const folder = await this.openFolder(name);
    if (folder === undefined) return undefined;
    try {
      return await readHostTextFile(folder.at(SKILL_FILE_NAME));
    } catch (error) {
      if (error instanceof UnreadableHostFileError) {
        throw new ToolError("invalid_skill", `${name}/${SKILL_FILE_NAME}: ${error.message}.`, {
          hint: "The host must replace or remove this file; pick another skill.",
        });
      }
      throw error;
    } finally {
      await folder.close();
    }
  }

  /** {@inheritDoc WritableSkillStore.create} */
  async create(skill: SkillDocument): Promise<void> {
    // A create that fails (a full disk) removes the folder it made, when still empty: left behind,
    // `delete` answered "deleted" for a skill that was never created.
    this.fileOf(skill.name);
    const root = await this.pinned.open([], true);
    if (root === undefined) throw this.vanished(skill.name, Object.assign(new Error("made, then gone"), { code: "ENOENT" }));
    try {
      const made = await mkdir(root.at(skill.name)).then(
        () => true,
        (error: unknown) => {
          if (hasErrorCode(error, "EEXIST")) return false;
          throw error;
        },
      );
      try {
        await this.writeNew(root, skill);
      } catch (error) {
        // Through the root's handle, and only an empty folder: never one a concurrent create filled.
        if (made) await rmdir(root.at(skill.name)).catch(() => undefined);
        throw error;
      }
    } finally {
      await root.close();
    }
  }

  /** Writes a new skill's file into its folder (which exists), never over an existing one. */
  private async writeNew(root: VerifiedDirectory, skill: SkillDocument): Promise<void> {
    const folder = await this.folderIn(root, skill.name);
    if (folder === undefined) throw this.vanished(skill.name, Object.assign(new Error("made, then gone"), { code: "ENOENT" }));
    try {
      // Relative to the verified folder's handle: a folder swapped for a link since is not followed.
      await writeTextFileAtomic(folder.at(SKILL_FILE_NAME), formatSkillDocument(skill), { exclusive: true });
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) {
        throw new ToolError("skill_exists", `A skill named "${skill.name}" exists already.`, { hint: "Pick another name." });
      }
      throw this.vanished(skill.name, error);
    } finally {
      await folder.close();
    }
  }

  /** {@inheritDoc ManagedSkillStore.update} */
  async update(skill: SkillDocument): Promise<void> {
    if ((await this.readText(skill.name)) === undefined) {
      throw new ToolError("unknown_skill", `There is no skill named "${skill.name}" to update.`, {
        hint: "Create it instead, or list the skills.",
      });
    }
    const folder = await this.openFolder(skill.name);
    if (folder === undefined) {
      throw new ToolError("unknown_skill", `There is no skill named "${skill.name}" to update.`, {
        hint: "Create it instead, or list the skills.",
      });
    }
    try {
      await writeTextFileAtomic(folder.at(SKILL_FILE_NAME), formatSkillDocument(skill));
    } catch (error) {
      throw this.vanished(skill.name, error);
    } finally {
      await folder.close();
    }
  }

  /** {@inheritDoc ManagedSkillStore.delete} */
  async delete(name: string): Promise<boolean> {
    this.fileOf(name);
    const root = await this.pinned.open([], false);
    if (root === undefined) return false;
    try {
      const stat = await lstat(root.at(name)).catch((error: unknown) => {
        if (hasErrorCode(error, "ENOENT")) return undefined;
        throw error;
      });
      if (stat === undefined) return false;
      // A symlinked folder would make a delete follow it out of the skills directory: refuse it.
      if (!stat.isDirectory()) {
        throw new ToolError("invalid_skill", `Skill folder "${name}" is not a plain directory; it is left alone.`);
      }
      try {
        return await removeTreeNoFollow(root, name);
      } catch (error) {
        if (error instanceof LinkOnTheWay) throw this.pinned.refused(`${name}/${error.component}`);
        throw error;
      }
    } finally {
      await root.close();
    }
  }

  /**
   * A skill's folder, opened through verified handles from the anchor, or `undefined` when it is
   * missing; a symbolic link or a file in its place is refused (`invalid_skill`): the skills
   * directory may be in the workspace, where a sandboxed command can link a skill's folder (or
   * the skills directory itself) to any directory of the host.
   */
  private async openFolder(name: string): Promise<VerifiedDirectory | undefined> {
    const root = await this.pinned.open([], false);
    if (root === undefined) return undefined;
    try {
      return await this.folderIn(root, name);
    } finally {
      await root.close();
    }
  }

  /** {@link DirectorySkillStore.openFolder} inside the skills directory's open handle. */
  private async folderIn(root: VerifiedDirectory, name: string): Promise<VerifiedDirectory | undefined> {
    const stat = await lstat(root.at(name)).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT") || hasErrorCode(error, "ENOTDIR")) return undefined;
      throw error;
    });
    if (stat === undefined) return undefined;
    if (!stat.isDirectory()) throw this.notPlain(name);
    const expected = path.join(root.realPath, name);
    // Opened through the root's handle without following: a folder swapped for a link since the
    // lstat is refused here, not written through.
    return await openVerifiedDirectory(root.at(name), [], {
      create: false,
      checkInside: (realPath) => {
        if (realPath !== expected) throw new LinkOnTheWay(name);
      },
    }).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT")) return undefined;
      if (error instanceof LinkOnTheWay || hasErrorCode(error, "ELOOP") || hasErrorCode(error, "ENOTDIR")) {
        throw this.notPlain(name);
      }
      throw error;
    });
  }

  /** ENOENT writing in a folder opened a moment ago: it was removed (or moved away) meanwhile. */
  private vanished(name: string, error: unknown): unknown {
    if (!hasErrorCode(error, "ENOENT")) return error;
    return new ToolError(
      "invalid_skill",
      `Skill folder "${name}" was removed or replaced while it was written; nothing was written.`,
      {
        hint: "Retry once nothing else is changing the skills directory.",
      },
    );
  }

  private notPlain(name: string): ToolError {
    return new ToolError("invalid_skill", `Skill folder "${name}" is not a plain directory (a symbolic link is not followed).`, {
      hint: "The host must replace it with a directory; pick another skill.",
    });
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
