import { tokenize } from "agent-tool-catalog";
import type { AgentProfile } from "./agent-profile.js";

/**
 * A recommended profile and why.
 *
 * @public
 */
export interface ProfileRecommendation {
  /** The profile. */
  readonly name: string;
  /** The share of the task's keywords found in the profile, 0-1. */
  readonly score: number;
  /** The task's keywords (stemmed) that the profile's name, description or instructions contain. */
  readonly matched: readonly string[];
}

/**
 * Ranks profiles by keyword overlap between the task and each profile's name, description and
 * instructions (stemmed, stop words dropped, the same tokenizer as `find_tool`). Profiles that
 * share no keyword are left out.
 * @public
 */
export function recommendProfiles(task: string, profiles: readonly AgentProfile[], limit = 3): ProfileRecommendation[] {
  const wanted = new Set(tokenize(task));
  if (wanted.size === 0) return [];
  return profiles
    .map((profile) => {
      const offered = new Set(tokenize(`${profile.name} ${profile.description} ${profile.instructions ?? ""}`));
      const matched = [...wanted].filter((term) => offered.has(term));
      return { name: profile.name, score: Math.round((matched.length / wanted.size) * 100) / 100, matched };
    })
    .filter((recommendation) => recommendation.matched.length > 0)
    .sort((a, b) => b.score - a.score || a.name.localeCompare(b.name))
    .slice(0, limit);
}
