import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import {
  type AgentProfile,
  formatAgentProfile,
  type ParsedProfile,
  type ProfileIssue,
  parseAgentProfile,
} from "./agent-profile.js";

/**
 * A profile file that does not parse, as listings report it.
 *
 * @public
 */
export interface BrokenProfile {
  /** Its name. */
  readonly name: string;
  /** What is wrong with it. */
  readonly issues: readonly ProfileIssue[];
}

/**
 * Agent profiles as `<name>.toml` files in one directory. Names are checked (no path traversal),
 * writes are atomic, and creation never overwrites a profile another writer just made.
 * @public
 */
export class ProfileDirectory {
  /** The directory. */
  readonly directory: string;

  constructor(directory: string) {
    this.directory = path.resolve(directory);
  }

  /** Every profile, and the files that do not parse. */
  async list(): Promise<{ readonly profiles: AgentProfile[]; readonly broken: BrokenProfile[] }> {
    const names = await readdir(this.directory).catch((error: unknown) => {
      if (hasErrorCode(error, "ENOENT")) return [];
      throw error;
    });
    const profiles: AgentProfile[] = [];
    const broken: BrokenProfile[] = [];
    for (const file of names.sort()) {
      const name = file.endsWith(".toml") ? file.slice(0, -5) : undefined;
      if (name === undefined || !ENTITY_NAME_PATTERN.test(name)) continue;
      const parsed = await this.read(name);
      if (parsed === undefined) continue;
      if (parsed.ok) profiles.push(parsed.profile);
      else broken.push({ name, issues: parsed.issues });
    }
    return { profiles, broken };
  }

  /**
   * One profile, parsed; `undefined` when there is no such file. A `<name>.toml` that is not a
   * regular file (a FIFO, a directory) or is over 4 MiB is a broken profile (field `(file)`),
   * never waited on.
   */
  async read(name: string): Promise<ParsedProfile | undefined> {
    let text: string | undefined;
    try {
      text = await readHostTextFile(this.fileOf(name));
    } catch (error) {
      if (error instanceof UnreadableHostFileError) return { ok: false, issues: [{ field: "(file)", message: error.message }] };
      throw error;
    }
    return text === undefined ? undefined : parseAgentProfile(text, name);
  }

  /** Writes a new profile; refuses when one with the name exists. */
  async create(profile: AgentProfile): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    try {
      await writeTextFileAtomic(this.fileOf(profile.name), formatAgentProfile(profile), { exclusive: true });
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) throw exists(profile.name);
      throw error;
    }
  }

  /** Replaces an existing profile. */
  async replace(profile: AgentProfile): Promise<void> {
    await writeTextFileAtomic(this.fileOf(profile.name), formatAgentProfile(profile));
  }

  /** Deletes a profile; false when there was none. */
  async delete(name: string): Promise<boolean> {
    const file = this.fileOf(name);
    // lstat, not a read: a FIFO listed as a broken profile can be deleted without waiting on it.
    try {
      await lstat(file);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return false;
      throw error;
    }
    await rm(file, { force: true, recursive: false });
    return true;
  }

  private fileOf(name: string): string {
    const file = path.join(this.directory, `${checkEntityName("Profile", name)}.toml`);
    // The name pattern already rules out separators; this keeps the guarantee local.
    if (path.dirname(file) !== this.directory)
      throw new ToolError("invalid_name", `Profile name ${JSON.stringify(name)} leaves the profiles directory.`);
    return file;
  }
}

function exists(name: string): ToolError {
  return new ToolError("profile_exists", `A profile named "${name}" exists already.`, {
    hint: "Use update_profile to change it, or pick another name.",
  });
}
