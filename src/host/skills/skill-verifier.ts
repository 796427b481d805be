import { createHash } from "node:crypto";
import { ToolError } from "agent-tool-catalog";
import { writeTextFileAtomic } from "../shared/atomic-file.js";
import { type Clock, systemClock } from "../shared/clock.js";
import type { DirectorySkillStore } from "./directory-skill-store.js";
import type { SkillDocument } from "./skill-document.js";

/**
 * One finding of a verification.
 *
 * @public
 */
export interface SkillIssue {
  /** `error` makes the skill invalid; `warning` does not. */
  readonly severity: "error" | "warning";
  /** What is wrong. */
  readonly message: string;
}

/**
 * A verification's outcome, as written next to the skill.
 *
 * @public
 */
export interface SkillVerification {
  /** The skill. */
  readonly name: string;
  /** True when there is no error. */
  readonly valid: boolean;
  /** Errors and warnings. */
  readonly issues: readonly SkillIssue[];
  /** When it was verified (ms since the epoch). */
  readonly verifiedAt: number;
  /** SHA-256 of the verified file, so a host can tell a changed skill from a verified one. */
  readonly contentHash: string | undefined;
}

/**
 * What a verification may ask of the calling run.
 *
 * @public
 */
export interface SkillVerifyContext {
  /** True when a tool of this name exists. */
  isKnownTool(name: string): boolean;
}

/**
 * Checks a skill and records the result (the spec's `SkillVerifier`).
 *
 * @public
 */
export interface SkillVerifier {
  /** Verifies a skill; rejects with `ToolError` `unknown_skill` when there is none. */
  verify(name: string, context: SkillVerifyContext): Promise<SkillVerification>;
}

/**
 * The verification record's file, in the skill's folder.
 *
 * @public
 */
export const VERIFICATION_FILE_NAME = ".verification.json";

function checks(skill: SkillDocument, context: SkillVerifyContext): SkillIssue[] {
  const issues: SkillIssue[] = [];
  if (skill.description.length < 20)
    issues.push({ severity: "warning", message: "the description is under 20 characters: say when to use the skill" });
  if (skill.description.length > 1024) issues.push({ severity: "error", message: "the description is over 1024 characters" });
  if (skill.body === "") issues.push({ severity: "error", message: "the body is empty: a skill needs instructions" });
  if (skill.body.length > 100_000) issues.push({ severity: "error", message: "the body is over 100000 characters" });
  for (const tool of skill.allowedTools ?? []) {
    if (!context.isKnownTool(tool))
      issues.push({ severity: "warning", message: `allowed-tools names "${tool}", which this catalog does not have` });
  }
  if (skill.allowedTools?.length === 0)
    issues.push({
      severity: "warning",
      message: "allowed-tools is empty: the skill can use no tool but AskUserQuestion, find_tool and skill",
    });
  return issues;
}

/**
 * The default verifier, for a {@link DirectorySkillStore}: parses the skill, checks its fields,
 * body and tools, and writes `.verification.json` into the skill's folder (atomically).
 * @public
 */
export class DirectorySkillVerifier implements SkillVerifier {
  private readonly store: DirectorySkillStore;
  private readonly clock: Clock;

  constructor(store: DirectorySkillStore, options: { readonly clock?: Clock } = {}) {
    this.store = store;
    this.clock = options.clock ?? systemClock;
  }

  /** {@inheritDoc SkillVerifier.verify} */
  async verify(name: string, context: SkillVerifyContext): Promise<SkillVerification> {
    const text = await this.store.readText(name);
    if (text === undefined)
      throw new ToolError("unknown_skill", `There is no skill named "${name}".`, { hint: 'Call skill with {"action":"list"}.' });
    let issues: SkillIssue[];
    try {
      const skill = await this.store.get(name);
      issues =
        skill === undefined ? [{ severity: "error", message: "the skill disappeared while verifying" }] : checks(skill, context);
    } catch (error) {
      issues = [{ severity: "error", message: error instanceof Error ? error.message : String(error) }];
    }
    const verification: SkillVerification = {
      name,
      valid: !issues.some((issue) => issue.severity === "error"),
      issues,
      verifiedAt: this.clock.now(),
      contentHash: createHash("sha256").update(text).digest("hex"),
    };
    const record = { ...verification, verifiedAt: new Date(verification.verifiedAt).toISOString() };
    await writeTextFileAtomic(this.store.pathOf(name, VERIFICATION_FILE_NAME), `${JSON.stringify(record, null, 2)}\n`);
    return verification;
  }
}
