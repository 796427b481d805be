/**
 * A skill pack: a named set of skills a conversation can subscribe to.
 *
 * @public
 */
export interface SkillPack {
  /** Its name. */
  readonly name: string;
  /** What it is for. */
  readonly description: string;
  /** The skills it brings. */
  readonly skills: readonly string[];
  /** True once activated. */
  readonly active: boolean;
}

/**
 * Skill pack subscriptions (the spec's `PackRegistry`): list, search and activate. What
 * activation does (install the skills, enable them for a workspace) is the registry's business.
 * Rejects with `ToolError` `unknown_pack` for a name it does not know.
 * @public
 */
export interface PackRegistry {
  /** Every pack. */
  list(): Promise<readonly SkillPack[]>;
  /** Packs matching keywords, best first. */
  search(query: string): Promise<readonly SkillPack[]>;
  /** Subscribes to a pack. */
  activate(name: string): Promise<SkillPack>;
}
