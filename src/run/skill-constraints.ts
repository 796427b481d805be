import { ConfigurationError } from "../errors/configuration-error.js";
import { AllowedNames } from "../tool/allowed-names.js";

/**
 * The skill constraints in force in a run: each active skill's `allowed-tools`. They nest: a tool
 * must be allowed by every one. `version` changes with them, so views can cache.
 */
export class SkillConstraints {
  private readonly constraints: { readonly skill: string; readonly allowed: AllowedNames }[] = [];
  private changes = 0;

  /** Adds a constraint; returns the function that lifts it (once). */
  apply(skill: string, allowedTools: readonly string[]): () => void {
    if (!Array.isArray(allowedTools) || !allowedTools.every((name) => typeof name === "string")) {
      throw new ConfigurationError("invalid_skill_constraint", `Skill "${skill}": allowed-tools must be a list of tool names.`, {
        data: { skill },
      });
    }
    // Matched as allowedTools is: an MCP tool may be written as its server spells it.
    const constraint = { skill, allowed: new AllowedNames(allowedTools) };
    this.constraints.push(constraint);
    this.changes++;
    return () => {
      const index = this.constraints.indexOf(constraint);
      if (index === -1) return;
      this.constraints.splice(index, 1);
      this.changes++;
    };
  }

  /** True when every active constraint allows `name`. */
  allows(name: string): boolean {
    for (const constraint of this.constraints) if (!constraint.allowed.has(name)) return false;
    return true;
  }

  /**
   * `names` narrowed by every constraint in force (`undefined`: every tool, so the constraints
   * alone decide; still `undefined` when there is none).
   */
  narrow(names: readonly string[] | undefined): readonly string[] | undefined {
    let out = names;
    for (const constraint of this.constraints) {
      out = out === undefined ? [...constraint.allowed.names] : constraint.allowed.narrow(out);
    }
    return out;
  }

  /** The constraints in force, outermost first, as saved with the run. */
  list(): { skill: string; allowedTools: string[] }[] {
    return this.constraints.map((constraint) => ({ skill: constraint.skill, allowedTools: [...constraint.allowed.names] }));
  }

  /** The skills whose constraints are in force, innermost last. */
  active(): string[] {
    return this.constraints.map((constraint) => constraint.skill);
  }

  /** Changes on every apply and lift. */
  get version(): number {
    return this.changes;
  }
}
