import path from "node:path";
import {
  type AnyToolDefinition,
  BUILTIN_TAG,
  CORE_SET_TAG,
  defineTool,
  type ToolContext,
  ToolError,
  type ToolGroup,
} from "agent-tool-catalog";
import type { z } from "zod";
import { checkEntityName } from "../shared/entity-name.js";
import { EntryLocks } from "../shared/entry-locks.js";
import { lazySchemas } from "../shared/lazy-zod.js";
import { rememberWorkspaceAnchor } from "../shared/pinned-host-directory.js";
import { WorkspaceAnchoredStores } from "../shared/workspace-anchored-stores.js";
import { DirectorySkillStore } from "./directory-skill-store.js";
import { formatSkillDocument, parseSkillDocument, type SkillDocument } from "./skill-document.js";
import { SkillResources, skillNameOf, skillUri } from "./skill-resources.js";
import type { ManagedSkillStore } from "./skill-store.js";

/**
 * The workspace convention for skills: `<workspace>/.<app>/skills`, each skill in
 * `<name>/SKILL.md`.
 * @param app - the application's directory name without the dot, e.g. `"horon"` for `.horon`.
 * @public
 */
export function workspaceSkillsDirectory(workspace: string, app: string): string {
  if (!/^[a-z0-9][a-z0-9_-]*$/i.test(app)) throw new TypeError(`app must be a plain directory name, got ${JSON.stringify(app)}`);
  const directory = path.join(workspace, `.${app}`, "skills");
  // A store on this path anchors at the workspace: `.<app>` or `skills` linked out is refused.
  rememberWorkspaceAnchor(directory, workspace);
  return directory;
}

/**
 * Options of {@link skillManageToolGroup}.
 *
 * @public
 */
export interface SkillManageOptions {
  /**
   * The skills directory, e.g. `workspaceSkillsDirectory(workspace, "myapp")` for
   * `.myapp/skills/<name>/SKILL.md`. Ignored when `store` is given.
   */
  readonly skillsDir?: string;
  /** Where skills live. @defaultValue a `DirectorySkillStore` on `skillsDir` */
  readonly store?: ManagedSkillStore;
}

const schemas = lazySchemas((z) => {
  const manageInput = z.object({
    action: z.enum(["list", "read", "create", "update", "delete"]).describe("What to do"),
    name: z.string().min(1).max(80).optional().describe("The skill's name, or its skill://<name> URI (all but list)"),
    description: z.string().trim().min(1).max(1024).optional().describe("create/update: when to use the skill"),
    body: z.string().min(1).max(100_000).optional().describe("create/update: the instructions (Markdown)"),
    allowed_tools: z
      .array(z.string().min(1))
      .max(100)
      .optional()
      .describe("create/update: the only tools it may use while active"),
    context: z.enum(["inline", "fork"]).optional().describe("create/update: fork runs it in a subagent (default inline)"),
    content: z
      .string()
      .min(1)
      .max(120_000)
      .optional()
      .describe("create/update: the whole SKILL.md (front matter and body) instead of the fields above"),
  });
  return { manageInput };
});
type Schemas = ReturnType<typeof schemas>;

type ManageInput = z.output<Schemas["manageInput"]>;

function requireName(input: ManageInput): string {
  if (input.name === undefined) {
    throw new ToolError("invalid_input", `name is required for ${input.action}.`, { data: { field: "name" } });
  }
  return checkEntityName("Skill", skillNameOf(input.name));
}

/** The name a change locks: the skill's name, whether given bare or as a `skill://` URI. */
function lockKey(nameOrUri: string): string {
  try {
    return skillNameOf(nameOrUri);
  } catch {
    return nameOrUri; // refused by manage() itself, with the error the model should get
  }
}

/** The document a create or update asks for: from `content`, or from the fields over `base`. */
function documentOf(input: ManageInput, name: string, base: SkillDocument | undefined): SkillDocument {
  if (input.content !== undefined) return parseSkillDocument(input.content, name);
  const description = input.description ?? base?.description;
  const body = input.body ?? base?.body;
  if (description === undefined || body === undefined) {
    throw new ToolError("invalid_input", "description and body are required to create a skill (or give content).", {
      data: { field: description === undefined ? "description" : "body" },
    });
  }
  // Round-trip through the parser, so what is stored is what `skill` will read.
  const candidate: SkillDocument = {
    name,
    description,
    body,
    context: input.context ?? base?.context ?? "inline",
    allowedTools: input.allowed_tools ?? base?.allowedTools,
    model: base?.model,
  };
  return parseSkillDocument(formatSkillDocument(candidate), name);
}

async function manage(store: ManagedSkillStore, input: ManageInput): Promise<unknown> {
  const resources = new SkillResources(store);
  switch (input.action) {
    case "list": {
      const { broken } = await store.list();
      return { skills: await resources.list(), ...(broken.length === 0 ? {} : { broken }) };
    }
    case "read": {
      const name = requireName(input);
      const read = await resources.read(name);
      if (read === undefined) throw unknownSkill(name);
      return read.text;
    }
    case "create": {
      const name = requireName(input);
      await store.create(documentOf(input, name, undefined));
      return { created: skillUri(name), note: `Invoke it with skill {"name":"${name}"}.` };
    }
    case "update": {
      const name = requireName(input);
      const current = await store.get(name);
      if (current === undefined) throw unknownSkill(name);
      await store.update(documentOf(input, name, current));
      return { updated: skillUri(name) };
    }
    case "delete": {
      const name = requireName(input);
      if (!(await store.delete(name))) throw unknownSkill(name);
      return { deleted: skillUri(name) };
    }
  }
}

function unknownSkill(name: string): ToolError {
  return new ToolError("unknown_skill", `There is no skill named "${name}".`, {
    hint: 'List them with {"action":"list"}.',
  });
}

/**
 * `skill_manage`: list, read, create, update and delete skills (`<name>/SKILL.md` with YAML
 * front matter) in the host's skills directory; `read` takes a name or a `skill://<name>` URI.
 * It changes files, so it asks approval like any destructive tool.
 * @public
 */
export function createSkillManageTool(store: ManagedSkillStore): AnyToolDefinition {
  return skillManageTool(() => store);
}

/** `skill_manage` over the store `storeFor` picks for each call. */
function skillManageTool(storeFor: (context: ToolContext) => ManagedSkillStore): AnyToolDefinition {
  const locks = new EntryLocks();
  return defineTool({
    name: "skill_manage",
    description: "Manage skills (SKILL.md instruction packs): list, read (name or skill://<name>), create, update or delete one.",
    inputSchema: schemas().manageInput,
    tier: "deferred",
    mutating: true,
    annotations: { title: "Manage skills" },
    tags: [BUILTIN_TAG, CORE_SET_TAG, "skill", "skills", "manage", "author", "edit", "delete", "resource"],
    // A create, update or delete of one skill waits for the one before it: see EntryLocks.
    handler: (input, context) => {
      const store = storeFor(context);
      return input.name === undefined || input.action === "list" || input.action === "read"
        ? manage(store, input)
        : locks.run(lockKey(input.name), () => manage(store, input));
    },
  });
}

/**
 * `skill_manage`, present when a `skillsDir` or a `store` is given.
 *
 * @public
 */
export function skillManageToolGroup(options: SkillManageOptions): ToolGroup {
  const { store, skillsDir } = options;
  // A skills directory inside the calling run's workspace anchors there (see WorkspaceAnchoredStores),
  // whether or not it was made by `workspaceSkillsDirectory`.
  const stores =
    store !== undefined || skillsDir === undefined || skillsDir === ""
      ? undefined
      : new WorkspaceAnchoredStores(skillsDir, (anchor) => new DirectorySkillStore(skillsDir, anchor));
  const makeTool =
    store !== undefined
      ? () => createSkillManageTool(store)
      : stores === undefined
        ? undefined
        : () => skillManageTool((context) => stores.for(context));
  return {
    name: "skill_manage",
    enabled: makeTool !== undefined,
    tools: () => (makeTool === undefined ? [] : [makeTool()]),
  };
}
