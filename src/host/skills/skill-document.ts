import { TOOL_NAME_PATTERN, ToolError } from "agent-tool-catalog";
import type * as Yaml from "yaml";
import { loadOnDemand } from "../../tool/load-on-demand.js";

// Loaded by the first call that needs it, not by the host entry's import (src/tool/load-on-demand.ts).
const yaml = loadOnDemand<typeof Yaml>("yaml");

/**
 * How a skill runs: its body injected into the conversation, or in a forked subagent.
 *
 * @public
 */
export type SkillContext = "inline" | "fork";

/**
 * A parsed `SKILL.md`: YAML front matter between `---` lines, then a Markdown body.
 * ```md
 * ---
 * name: release-notes
 * description: Write release notes from the commits since the last tag
 * allowed-tools: [git_log_search, read, write]
 * context: fork
 * ---
 * Read the commits since the last tag, then ...
 * ```
 * @public
 */
export interface SkillDocument {
  /** `name`: the skill's folder name. */
  readonly name: string;
  /** `description`: when to use the skill. */
  readonly description: string;
  /** `allowed-tools`: the tools the skill may use while active (a list, or a comma/space separated string). */
  readonly allowedTools?: readonly string[] | undefined;
  /** `context`: `fork` runs the skill in a subagent. @defaultValue `"inline"` */
  readonly context: SkillContext;
  /** `model`: the model of a forked skill. */
  readonly model?: string | undefined;
  /** The Markdown body, the instructions. */
  readonly body: string;
}

const FRONT_MATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

function invalid(source: string, message: string): ToolError {
  return new ToolError("invalid_skill", `${source}: ${message}`, {
    hint: "Fix the front matter: name, description, optional allowed-tools and context.",
  });
}

function parseFrontMatter(text: string, source: string): { data: Record<string, unknown>; body: string } {
  const match = FRONT_MATTER.exec(text);
  if (match === null)
    throw invalid(source, 'no YAML front matter: the file must start with a "---" line, the fields, and another "---" line.');
  let data: unknown;
  try {
    data = yaml().parse(match[1] ?? "");
  } catch (error) {
    if (error instanceof yaml().YAMLParseError) {
      // The front matter starts on the file's second line.
      const line = (error.linePos?.[0]?.line ?? 0) + 1;
      throw invalid(source, `malformed YAML front matter at line ${line}: ${error.message.split("\n")[0] ?? error.message}`);
    }
    // The parser's other refusals (an alias bomb's "Excessive alias count", a ReferenceError)
    // are about the text too: the model wrote it, so it gets them as invalid_skill, not tool_failed.
    if (error instanceof Error) throw invalid(source, `the YAML front matter cannot be read: ${error.message}`);
    throw error;
  }
  if (typeof data !== "object" || data === null || Array.isArray(data))
    throw invalid(source, "the front matter must be a YAML mapping of fields.");
  return { data: data as Record<string, unknown>, body: text.slice(match[0].length) };
}

function toolList(value: unknown, source: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const names = typeof value === "string" ? value.split(/[\s,]+/).filter((name) => name !== "") : value;
  if (!Array.isArray(names) || !names.every((name) => typeof name === "string" && TOOL_NAME_PATTERN.test(name))) {
    throw invalid(source, "allowed-tools must be a list of tool names (or one string of names separated by commas or spaces).");
  }
  return names;
}

/**
 * Parses a `SKILL.md`. `name` is the folder it lives in; the front matter's `name` must match.
 * @throws ToolError `invalid_skill` naming the file, the field, and for YAML errors the line.
 * @public
 */
export function parseSkillDocument(text: string, name: string, source = `${name}/SKILL.md`): SkillDocument {
  const { data, body } = parseFrontMatter(text, source);
  if (data.name !== name)
    throw invalid(source, `the front matter's name must be "${name}" (the folder's name), not ${JSON.stringify(data.name)}.`);
  if (typeof data.description !== "string" || data.description.trim() === "")
    throw invalid(source, "description is required (a non-empty string).");
  const context = data.context ?? "inline";
  if (context !== "inline" && context !== "fork")
    throw invalid(source, `context must be "fork" or "inline", not ${JSON.stringify(context)}.`);
  if (data.model !== undefined && typeof data.model !== "string") throw invalid(source, "model must be a string.");
  return {
    name,
    description: data.description.trim(),
    allowedTools: toolList(data["allowed-tools"], source),
    context,
    model: data.model,
    body: body.trim(),
  };
}

/**
 * A skill as `SKILL.md` text.
 *
 * @public
 */
export function formatSkillDocument(skill: SkillDocument): string {
  const data: Record<string, unknown> = { name: skill.name, description: skill.description };
  if (skill.allowedTools !== undefined) data["allowed-tools"] = [...skill.allowedTools];
  if (skill.context === "fork") data.context = "fork";
  if (skill.model !== undefined) data.model = skill.model;
  return `---\n${yaml().stringify(data)}---\n\n${skill.body.trim()}\n`;
}
