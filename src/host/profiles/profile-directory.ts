import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
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

  /** One profile, parsed; `undefined` when there is no such file. */
  async read(name: string): Promise<ParsedProfile | undefined> {
    try {
      return parseAgentProfile(await readFile(this.fileOf(name), "utf8"), name);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return undefined;
      throw error;
    }
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
    try {
      await readFile(file);
    } catch (error) {
      if (hasErrorCode(error, "ENOENT")) return false;
      throw error;
    }
    await rm(file, { force: true });
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
