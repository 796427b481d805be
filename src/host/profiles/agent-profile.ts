import { CatalogError, parseToolConfig, TOOL_NAME_PATTERN, type ToolConfig } from "agent-tool-catalog";
import type * as SmolToml from "smol-toml";
import { countOf } from "../../errors/count-of.js";
import { loadOnDemand } from "../../tool/load-on-demand.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const smolToml = loadOnDemand<typeof SmolToml>("smol-toml");

/**
 * An agent profile: what a (sub)agent runs with. Stored as `<name>.toml`:
 * ```toml
 * description = "Reviews diffs for security problems"
 * model = "claude-sonnet-4-5"
 * max_steps = 40
 * instructions = "Report findings with file and line."
 * allowed_tools = ["read", "grep", "git_diff_range"]
 * [tools]
 * profile = "core"
 * disabled = ["download"]
 * ```
 * @public
 */
export interface AgentProfile {
  /** The profile's name (the file name without `.toml`). */
  readonly name: string;
  /** What the profile is for; `recommend_profile` matches tasks against it. */
  readonly description: string;
  /** The model. */
  readonly model?: string | undefined;
  /** The most model turns a run may take. */
  readonly maxSteps?: number | undefined;
  /** Extra system instructions. */
  readonly instructions?: string | undefined;
  /** Only these tools (plus the always-available ones), when given. */
  readonly allowedTools?: readonly string[] | undefined;
  /** The `[tools]` table: tool profile, disabled tools, load modes. */
  readonly tools?: ToolConfig | undefined;
}

/**
 * One thing wrong with a profile definition.
 *
 * @public
 */
export interface ProfileIssue {
  /** The key at fault, e.g. `max_steps`, or `(toml)` for a syntax error. */
  readonly field: string;
  /** What is wrong and what is expected. */
  readonly message: string;
}

/**
 * A parsed profile, or what is wrong with it.
 *
 * @public
 */
export type ParsedProfile =
  | { readonly ok: true; readonly profile: AgentProfile }
  | { readonly ok: false; readonly issues: readonly ProfileIssue[] };

const KNOWN_KEYS = new Set(["name", "description", "model", "max_steps", "instructions", "allowed_tools", "tools"]);

type Fields = { -readonly [Key in keyof AgentProfile]: AgentProfile[Key] };

function optionalString(document: Record<string, unknown>, key: string, max: number, issues: ProfileIssue[]): string | undefined {
  const value = document[key];
  if (value === undefined) return undefined;
  if (typeof value !== "string" || value.trim() === "" || value.length > max) {
    issues.push({ field: key, message: `must be a non-empty string of at most ${countOf(max, "character")}` });
    return undefined;
  }
  return value;
}

function readFields(document: Record<string, unknown>, name: string, issues: ProfileIssue[]): Fields {
  for (const key of Object.keys(document))
    if (!KNOWN_KEYS.has(key)) issues.push({ field: key, message: `unknown key; known keys are ${[...KNOWN_KEYS].join(", ")}` });
  if (document.name !== undefined && document.name !== name)
    issues.push({ field: "name", message: `must match the file name "${name}" (or be left out)` });
  const description = optionalString(document, "description", 2000, issues);
  if (description === undefined && document.description === undefined)
    issues.push({ field: "description", message: "is required" });
  const fields: Fields = { name, description: description ?? "" };
  fields.model = optionalString(document, "model", 200, issues);
  fields.instructions = optionalString(document, "instructions", 50_000, issues);
  const steps = document.max_steps;
  if (steps !== undefined) {
    if (typeof steps === "number" && Number.isInteger(steps) && steps >= 1 && steps <= 1000) fields.maxSteps = steps;
    else issues.push({ field: "max_steps", message: "must be a whole number from 1 to 1000" });
  }
  const allowed = document.allowed_tools;
  if (allowed !== undefined) {
    if (Array.isArray(allowed) && allowed.every((tool) => typeof tool === "string" && TOOL_NAME_PATTERN.test(tool)))
      fields.allowedTools = allowed as string[];
    else issues.push({ field: "allowed_tools", message: "must be an array of tool names" });
  }
  return fields;
}

/**
 * Parses and checks a profile's TOML; `name` is the name it is stored under.
 *
 * @public
 */
export function parseAgentProfile(toml: string, name: string): ParsedProfile {
  let document: Record<string, unknown>;
  try {
    document = smolToml().parse(toml) as Record<string, unknown>;
  } catch (error) {
    return { ok: false, issues: [{ field: "(toml)", message: error instanceof Error ? error.message : String(error) }] };
  }
  const issues: ProfileIssue[] = [];
  const fields = readFields(document, name, issues);
  if (document.tools !== undefined) {
    try {
      fields.tools = parseToolConfig(toml, `profile "${name}"`);
    } catch (error) {
      issues.push({ field: "tools", message: CatalogError.isInstance(error) ? error.message : String(error) });
    }
  }
  return issues.length === 0 ? { ok: true, profile: fields } : { ok: false, issues };
}

/**
 * A profile as TOML, in the key order of the format above.
 *
 * @public
 */
export function formatAgentProfile(profile: AgentProfile): string {
  const document: Record<string, unknown> = { description: profile.description };
  if (profile.model !== undefined) document.model = profile.model;
  if (profile.maxSteps !== undefined) document.max_steps = profile.maxSteps;
  if (profile.instructions !== undefined) document.instructions = profile.instructions;
  if (profile.allowedTools !== undefined) document.allowed_tools = [...profile.allowedTools];
  const tools = profile.tools;
  if (tools !== undefined) {
    const table: Record<string, unknown> = {};
    if (tools.profile !== undefined) table.profile = tools.profile;
    if (tools.disabled !== undefined) table.disabled = [...tools.disabled];
    if (tools.redo !== undefined) table.redo = tools.redo;
    if (tools.hashlineEdit !== undefined) table.hashline_edit = tools.hashlineEdit;
    if (tools.loadModes !== undefined) table.load_mode = { ...tools.loadModes };
    if (Object.keys(table).length > 0) document.tools = table;
  }
  return `${smolToml().stringify(document)}\n`;
}
