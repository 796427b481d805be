import { ToolError } from "agent-tool-catalog";
import { ENTITY_NAME_PATTERN } from "../shared/entity-name.js";
import { formatSkillDocument } from "./skill-document.js";
import type { SkillStore } from "./skill-store.js";

/**
 * The scheme of skill resources: `skill://<name>`.
 *
 * @public
 */
export const SKILL_URI_PREFIX = "skill://";

/**
 * A skill as a listed resource (the shape of an MCP resource).
 *
 * @public
 */
export interface SkillResource {
  /** `skill://<name>`. */
  readonly uri: string;
  /** The skill's name. */
  readonly name: string;
  /** When to use it. */
  readonly description: string;
  /** Always `text/markdown`: the resource is the skill's `SKILL.md`. */
  readonly mimeType: "text/markdown";
}

/**
 * A read skill resource (the shape of an MCP `resources/read` content item).
 *
 * @public
 */
export interface SkillResourceContents {
  /** `skill://<name>`. */
  readonly uri: string;
  /** `text/markdown`. */
  readonly mimeType: "text/markdown";
  /** The `SKILL.md` text, front matter included. */
  readonly text: string;
}

/**
 * The resource URI of a skill.
 *
 * @public
 */
export function skillUri(name: string): string {
  return `${SKILL_URI_PREFIX}${name}`;
}

/**
 * The skill name a `skill://<name>` URI (or a bare name) refers to.
 * @throws ToolError `invalid_name` for anything else.
 * @public
 */
export function skillNameOf(uriOrName: string): string {
  const name = uriOrName.startsWith(SKILL_URI_PREFIX) ? uriOrName.slice(SKILL_URI_PREFIX.length).replace(/\/$/, "") : uriOrName;
  if (ENTITY_NAME_PATTERN.test(name)) return name;
  throw new ToolError("invalid_name", `${JSON.stringify(uriOrName)} is not a skill name or skill:// URI.`, {
    hint: 'Use a name like "release-notes" or "skill://release-notes".',
  });
}

/** A store that can give a skill's raw text; others are re-formatted from the parsed document. */
interface TextSource {
  readText?(name: string): Promise<string | undefined>;
}

/**
 * Skills as `skill://<name>` resources, for a host to serve next to its MCP resources (or in its
 * own UI): `list()` and `read(uri)` over any {@link SkillStore}. Broken skills are not listed.
 * @public
 */
export class SkillResources {
  private readonly store: SkillStore & TextSource;

  constructor(store: SkillStore) {
    this.store = store;
  }

  /** Every readable skill as a resource, by name. */
  async list(): Promise<SkillResource[]> {
    const { skills } = await this.store.list();
    return skills.map((skill) => ({
      uri: skillUri(skill.name),
      name: skill.name,
      description: skill.description,
      mimeType: "text/markdown",
    }));
  }

  /** A skill's `SKILL.md`, or `undefined` when there is no such skill. */
  async read(uri: string): Promise<SkillResourceContents | undefined> {
    const name = skillNameOf(uri);
    const text = this.store.readText === undefined ? undefined : await this.store.readText(name);
    if (text !== undefined) return { uri: skillUri(name), mimeType: "text/markdown", text };
    const skill = await this.store.get(name);
    if (skill === undefined) return undefined;
    return { uri: skillUri(name), mimeType: "text/markdown", text: formatSkillDocument(skill) };
  }
}
