import type { SkillDocument } from "./skill-document.js";

/**
 * A skill file that does not parse, as listings report it.
 *
 * @public
 */
export interface BrokenSkill {
  /** Its folder name. */
  readonly name: string;
  /** What is wrong. */
  readonly error: string;
}

/**
 * Where skills come from (the spec's `SkillLister`): a skills directory, a package, a remote
 * catalog. `get` rejects with `ToolError` `invalid_skill` for a skill that does not parse.
 * @public
 */
export interface SkillStore {
  /** Every skill, and those that do not parse. */
  list(): Promise<{ readonly skills: readonly SkillDocument[]; readonly broken: readonly BrokenSkill[] }>;
  /** One skill, or `undefined` when there is none by that name. */
  get(name: string): Promise<SkillDocument | undefined>;
}

/**
 * A store the model may add skills to (`create_skill`).
 *
 * @public
 */
export interface WritableSkillStore extends SkillStore {
  /** Writes a new skill; rejects with `ToolError` `skill_exists` when the name is taken. */
  create(skill: SkillDocument): Promise<void>;
}

/**
 * A store whose skills the model may also change and remove (`skill_manage`).
 *
 * @public
 */
export interface ManagedSkillStore extends WritableSkillStore {
  /** The raw `SKILL.md` text of a skill, or `undefined` when there is none by that name. */
  readText(name: string): Promise<string | undefined>;
  /** Replaces an existing skill; rejects with `ToolError` `unknown_skill` when there is none. */
  update(skill: SkillDocument): Promise<void>;
  /** Removes a skill (its whole folder); resolves `false` when there was none. */
  delete(name: string): Promise<boolean>;
}
