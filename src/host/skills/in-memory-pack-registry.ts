import { ToolError, tokenize } from "agent-tool-catalog";
import type { PackRegistry, SkillPack } from "./pack-registry.js";

/**
 * Options of {@link InMemoryPackRegistry}.
 *
 * @public
 */
export interface InMemoryPackRegistryOptions {
  /** Called when a pack is activated, e.g. to copy its skills into the skills directory. */
  readonly onActivate?: (pack: SkillPack) => void | Promise<void>;
}

/**
 * Packs known in memory, with their activation state: the in-process default.
 *
 * @public
 */
export class InMemoryPackRegistry implements PackRegistry {
  private readonly packs = new Map<string, SkillPack>();
  private readonly options: InMemoryPackRegistryOptions;

  constructor(packs: readonly Omit<SkillPack, "active">[], options: InMemoryPackRegistryOptions = {}) {
    for (const pack of packs) this.packs.set(pack.name, { ...pack, active: false });
    this.options = options;
  }

  /** {@inheritDoc PackRegistry.list} */
  async list(): Promise<readonly SkillPack[]> {
    return [...this.packs.values()];
  }

  /** {@inheritDoc PackRegistry.search} */
  async search(query: string): Promise<readonly SkillPack[]> {
    const wanted = new Set(tokenize(query));
    return [...this.packs.values()]
      .map((pack) => {
        const offered = new Set(tokenize(`${pack.name} ${pack.description} ${pack.skills.join(" ")}`));
        return { pack, score: [...wanted].filter((term) => offered.has(term)).length };
      })
      .filter((scored) => scored.score > 0)
      .sort((a, b) => b.score - a.score || a.pack.name.localeCompare(b.pack.name))
      .map((scored) => scored.pack);
  }

  /** {@inheritDoc PackRegistry.activate} */
  async activate(name: string): Promise<SkillPack> {
    const pack = this.packs.get(name);
    if (pack === undefined) {
      throw new ToolError("unknown_pack", `There is no skill pack named ${JSON.stringify(name)}.`, {
        hint: "List or search the packs first.",
      });
    }
    if (pack.active) return pack;
    const active = { ...pack, active: true };
    await this.options.onActivate?.(active);
    this.packs.set(name, active);
    return active;
  }
}
