import { lstat, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "agent-tool-catalog";
import { hasErrorCode, writeTextFileAtomic } from "../shared/atomic-file.js";
import { checkEntityName, ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { readHostTextFile, UnreadableHostFileError } from "../shared/host-text-file.js";
import { PinnedHostDirectory } from "../shared/pinned-host-directory.js";
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
  private readonly pinned: PinnedHostDirectory;

  /**
   * @param directory - The profiles directory.
   * @param anchor - The folder the host trusts, at or above `directory`: resolved once (a link
   * the host set up is followed then); no folder from it down may be a link. @defaultValue `directory`
   */
  constructor(directory: string, anchor?: string) {
    this.directory = path.resolve(directory);
    this.pinned = new PinnedHostDirectory(this.directory, anchor);
  }

  /** Every profile, and the files that do not parse. */
  async list(): Promise<{ readonly profiles: AgentProfile[]; readonly broken: BrokenProfile[] }> {
    let names: string[];
    try {
      names = await this.inDirectory(false, async (at) => (at === undefined ? [] : readdir(at("."))));
    } catch (error) {
      // The directory linked or swapped out: one visible broken entry rather than an empty list.
      if (error instanceof ToolError && error.code === "symlink_refused") {
        return {
          profiles: [],
          broken: [{ name: path.basename(this.directory), issues: [{ field: "(directory)", message: error.message }] }],
        };
      }
      throw error;
    }
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
    const file = this.fileNameOf(name);
    let text: string | undefined;
    try {
      text = await this.inDirectory(false, (at) => (at === undefined ? Promise.resolve(undefined) : readHostTextFile(at(file))));
    } catch (error) {
      if (error instanceof UnreadableHostFileError) return { ok: false, issues: [{ field: "(file)", message: error.message }] };
      throw error;
    }
    return text === undefined ? undefined : parseAgentProfile(text, name);
  }

  /** Writes a new profile; refuses when one with the name exists. */
  async create(profile: AgentProfile): Promise<void> {
    const file = this.fileNameOf(profile.name);
    try {
      await this.inDirectory(true, (at) =>
        writeTextFileAtomic(this.entry(at, file), formatAgentProfile(profile), { exclusive: true }),
      );
    } catch (error) {
      if (hasErrorCode(error, "EEXIST")) throw exists(profile.name);
      throw error;
    }
  }

  /** Replaces an existing profile. */
  async replace(profile: AgentProfile): Promise<void> {
    const file = this.fileNameOf(profile.name);
    await this.inDirectory(false, (at) => writeTextFileAtomic(this.entry(at, file), formatAgentProfile(profile)));
  }

  /** Deletes a profile; false when there was none. */
  async delete(name: string): Promise<boolean> {
    const file = this.fileNameOf(name);
    return this.inDirectory(false, async (at) => {
      if (at === undefined) return false;
      // lstat, not a read: a FIFO listed as a broken profile can be deleted without waiting on it.
      let stat: Awaited<ReturnType<typeof lstat>>;
      try {
        stat = await lstat(at(file));
      } catch (error) {
        if (hasErrorCode(error, "ENOENT")) return false;
        throw error;
      }
      // A directory in a profile's place is not one the model made: never removed with its contents.
      if (stat.isDirectory()) {
        throw new ToolError("invalid_profile", `Profile "${name}" is a directory, not a file; it is left alone.`, {
          hint: "The host must remove or rename it; pick another name meanwhile.",
        });
      }
      // Through the verified directory's handle: unlinks the entry itself, never what a link names.
      await rm(at(file), { force: true, recursive: false });
      return true;
    });
  }

  /**
   * Runs `act` with entries of the profiles directory opened through verified handles (`at` is
   * `undefined` when the directory does not exist and `create` is false).
   * @throws ToolError `symlink_refused` when the directory or a folder up to the anchor is a link.
   */
  private async inDirectory<T>(create: boolean, act: (at: ((name: string) => string) | undefined) => Promise<T>): Promise<T> {
    const opened = await this.pinned.open([], create);
    if (opened === undefined) return act(undefined);
    try {
      return await act((name) => opened.at(name));
    } finally {
      await opened.close();
    }
  }

  /** `at(file)`; a missing directory fails with ENOENT as it did before (nothing is written by path). */
  private entry(at: ((name: string) => string) | undefined, file: string): string {
    if (at !== undefined) return at(file);
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path.join(this.directory, file)}'`), {
      code: "ENOENT",
    });
  }

  private fileNameOf(name: string): string {
    return path.basename(this.fileOf(name));
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
