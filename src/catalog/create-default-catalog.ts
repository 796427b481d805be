import {
  type AnyToolDefinition,
  type ApprovalBroker,
  type CreateRunOptions,
  createRegistry,
  narrowPermissions,
  type PermissionConfig,
  type Registry,
  type RegistryOptions,
  type ResolvedPermissionConfig,
  type Run,
  resolvePermissionConfig,
  type ToolGroup,
} from "agent-tool-catalog";
import {
  type AgentRunner,
  agentToolGroup,
  askUserQuestionToolGroup,
  type CallbackManager,
  type CronClient,
  callbackToolGroup,
  cronToolGroup,
  monitorToolGroup,
  type PackRegistry,
  type ProfileToolOptions,
  type PromptExtensionStore,
  profileToolGroup,
  promptExtensionToolGroup,
  type QuestionBroker,
  recipeToolGroup,
  type SkillStore,
  type SkillVerifier,
  type SourcegraphOptions,
  type SubagentManager,
  sessionSearchToolGroup,
  skillManageToolGroup,
  skillToolGroup,
  sourcegraphToolGroup,
  subagentToolGroup,
  swarmToolGroup,
  type TranscriptStore,
  todoToolGroup,
  type WebFetcher,
  type WebSearcher,
  type WorkflowService,
  webToolGroup,
  workflowToolGroup,
} from "agent-tool-catalog/host";
import { type BashToolOptions, createBashTool, type FileToolOptions, fileToolGroup } from "agent-tool-catalog/tools";
import { checkNumberOption } from "../errors/check-number-option.js";

/**
 * What MCP brings to the catalog (built with `agent-tool-catalog/mcp`, which needs the MCP SDK).
 *
 * @public
 */
export interface DefaultCatalogMcpOptions {
  /** `list_mcp_resources` and `read_mcp_resource` (`createMcpResourceTools(group)`), when MCP is enabled. */
  readonly resourceTools?: readonly AnyToolDefinition[];
  /** Builds `connect_mcp` once the registry exists (`(registry) => createConnectMcpTool(registry, {...})`). */
  readonly connectTool?: (registry: Registry) => AnyToolDefinition;
}

/**
 * Everything the default catalog is built from, in one object (the spec's
 * `NewDefaultRegistryWithOptions`). Each group is present only when what it needs is given and
 * its switch is on; otherwise it is absent, silently.
 * @public
 */
export interface DefaultCatalogOptions {
  /** The workspace: the root of the file tools and the default of `permissions.workspace`. */
  readonly workspace?: string;
  /**
   * The permissions runs get from `catalog.createRun()` (a run may ask for stricter ones).
   * @defaultValue `{ sandbox: "unrestricted", approval: "none" }`, the spec's default, with `workspace`
   */
  readonly permissions?: PermissionConfig;
  /** Where approvals wait. @defaultValue an `InMemoryApprovalBroker` */
  readonly approvals?: ApprovalBroker;
  /** Options of the file tools (`hashline`, `redo`, the `fetch` of `download`). */
  readonly files?: FileToolOptions;
  /**
   * Options of `bash`. Its `limits` and `runLimits` apply to `monitor`'s background commands too:
   * both tools reserve out of the run's one budget, so they get the same per-command limits and
   * run totals.
   */
  readonly bash?: BashToolOptions;
  /** `monitor` (background commands under the run's sandbox). @defaultValue on */
  readonly enableMonitor?: boolean;
  /** The spec's `EnableAgent`: agents, swarm, agentic fetch and the web tools need it. @defaultValue true */
  readonly enableAgent?: boolean;
  /** The spec's `EnableWebOps`. @defaultValue true */
  readonly enableWebOps?: boolean;
  /** The spec's `EnableCron`. @defaultValue true */
  readonly enableCron?: boolean;
  /** The spec's `EnableCallbacks`. @defaultValue true */
  readonly enableCallbacks?: boolean;
  /** The spec's `EnableMCP` (the resource tools; `connect_mcp` is independent of it). @defaultValue true */
  readonly enableMcp?: boolean;
  /** Runs child agents: `agent`, `spawn_agent`, `swarm`, `agentic_fetch`, forked skills. */
  readonly agentRunner?: AgentRunner;
  /**
   * The fork depth of the agents this catalog serves (a child's registry: 1 or more, so it gets
   * `task_complete`). A whole number at least 0.
   */
  readonly agentDepth?: number;
  /** Background subagents: `run_agent`, `start_subagent`, ... */
  readonly subagentManager?: SubagentManager;
  /** Fetches pages: `web_fetch` (and `agentic_fetch` with a runner). */
  readonly webFetcher?: WebFetcher;
  /** Searches the web: `web_search`. */
  readonly webSearcher?: WebSearcher;
  /** Cron jobs: `cron_*`. */
  readonly cronClient?: CronClient;
  /** Delayed callbacks: `*_delayed_callback`. */
  readonly callbackManager?: CallbackManager;
  /** Sourcegraph: `sourcegraph`, when it has an `endpoint`. */
  readonly sourcegraph?: SourcegraphOptions;
  /** Profile tools (always; the write tools need `profilesDir`). */
  readonly profiles?: ProfileToolOptions;
  /** The skills directory: `skill`, `create_skill`, `skill_manage`. */
  readonly skillsDir?: string;
  /** Where `skill` finds skills, instead of `skillsDir`. */
  readonly skillStore?: SkillStore;
  /** `verify_skill`. */
  readonly skillVerifier?: SkillVerifier;
  /** `manage_skill_packs`. */
  readonly packRegistry?: PackRegistry;
  /** `create_workflow`, `run_workflow`. */
  readonly workflowService?: WorkflowService;
  /** `run_recipe`. */
  readonly recipesDir?: string;
  /** `AskUserQuestion`. */
  readonly questionBroker?: QuestionBroker;
  /** `session_search`: transcripts of this and earlier runs. */
  readonly transcriptStore?: TranscriptStore;
  /** Where `create_prompt_extension` keeps extensions. @defaultValue in memory */
  readonly promptExtensions?: { readonly directory?: string; readonly store?: PromptExtensionStore };
  /** The git history tools: `gitToolGroup()` from `agent-tool-catalog/git` (needs isomorphic-git). */
  readonly git?: ToolGroup;
  /** MCP tools. */
  readonly mcp?: DefaultCatalogMcpOptions;
  /** More tools and groups of the host's own. */
  readonly tools?: readonly AnyToolDefinition[];
  /** More groups of the host's own. */
  readonly groups?: readonly ToolGroup[];
  /** Search options of the registry (find_tool's ranking). */
  readonly search?: RegistryOptions["search"];
}

/**
 * One group of the default catalog and whether it is present.
 *
 * @public
 */
export interface CatalogGroupState {
  /** The group's name. */
  readonly name: string;
  /** True when its condition is met and its tools are registered. */
  readonly present: boolean;
  /** Its tools, when present. */
  readonly tools: readonly string[];
}

/**
 * What {@link createDefaultCatalog} built.
 *
 * @public
 */
export interface DefaultCatalog {
  /** The registry: core tools, deferred groups, `find_tool` and `toolbox`. */
  readonly registry: Registry;
  /** Every group, present or not (for a host's diagnostics). */
  readonly groups: readonly CatalogGroupState[];
  /** A run with the catalog's permissions (narrowed further by what `options` asks). */
  createRun(options?: CreateRunOptions): Run;
}

/** Resolved permissions as a `PermissionConfig` (no `workspace: undefined`). */
function plain(resolved: ResolvedPermissionConfig): PermissionConfig {
  const { workspace, ...rest } = resolved;
  return workspace === undefined ? rest : { ...rest, workspace };
}

/** `{ [key]: value }`, or `{}` when the value is not given (options are exact: no `undefined`). */
function given<Key extends string, Value>(key: Key, value: Value | undefined): { [K in Key]?: Value } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: Value };
}

/** The groups that start child agents or reach the web. */
function agentGroups(options: DefaultCatalogOptions): ToolGroup[] {
  const enableAgent = options.enableAgent ?? true;
  const depth = given("depth", options.agentDepth);
  const runner = given("runner", options.agentRunner);
  return [
    agentToolGroup({ ...depth, enableAgent, ...runner }),
    swarmToolGroup({ ...depth, enableAgent, ...runner }),
    subagentToolGroup({ ...depth, ...given("manager", options.subagentManager) }),
    webToolGroup({
      ...depth,
      enableAgent,
      enableWebOps: options.enableWebOps ?? true,
      ...given("fetcher", options.webFetcher),
      ...given("searcher", options.webSearcher),
      ...given("agentRunner", options.agentRunner),
    }),
    workflowToolGroup({ ...depth, ...given("service", options.workflowService) }),
  ];
}

/** The skill, prompt and profile groups. */
function knowledgeGroups(options: DefaultCatalogOptions): ToolGroup[] {
  const forkRunner = (options.enableAgent ?? true) ? options.agentRunner : undefined;
  return [
    skillToolGroup({
      ...given("depth", options.agentDepth),
      ...given("skillsDir", options.skillsDir),
      ...given("store", options.skillStore),
      ...given("verifier", options.skillVerifier),
      ...given("packs", options.packRegistry),
      ...given("agentRunner", forkRunner),
    }),
    skillManageToolGroup(given("skillsDir", options.skillsDir)),
    promptExtensionToolGroup(options.promptExtensions ?? {}),
    profileToolGroup(options.profiles ?? {}),
    sessionSearchToolGroup(given("store", options.transcriptStore)),
    recipeToolGroup(given("recipesDir", options.recipesDir)),
  ];
}

/**
 * `bash`'s per-command limits and run totals, for `monitor`: they share the run's budget, and a
 * monitor left at the defaults (1,024 processes) would never fit in lowered bash totals.
 */
function commandLimitsOf(bash: BashToolOptions | undefined): Pick<BashToolOptions, "limits" | "runLimits"> {
  return {
    ...(bash?.limits === undefined ? {} : { limits: bash.limits }),
    ...(bash?.runLimits === undefined ? {} : { runLimits: bash.runLimits }),
  };
}

/** The default catalog's groups, in registration order. */
function groupsOf(options: DefaultCatalogOptions): ToolGroup[] {
  const root = given("root", options.workspace);
  return [
    fileToolGroup({ ...root, ...options.files }),
    { name: "bash", tools: () => [createBashTool({ ...root, ...options.bash })] },
    monitorToolGroup({ ...root, enabled: options.enableMonitor ?? true, ...commandLimitsOf(options.bash) }),
    todoToolGroup(),
    askUserQuestionToolGroup(given("broker", options.questionBroker)),
    ...knowledgeGroups(options),
    ...agentGroups(options),
    cronToolGroup({ enableCron: options.enableCron ?? true, ...given("client", options.cronClient) }),
    callbackToolGroup({ enableCallbacks: options.enableCallbacks ?? true, ...given("manager", options.callbackManager) }),
    sourcegraphToolGroup(options.sourcegraph ?? {}),
    ...(options.git === undefined ? [] : [options.git]),
    {
      name: "mcp",
      enabled: (options.enableMcp ?? true) && (options.mcp?.resourceTools?.length ?? 0) > 0,
      tools: () => [...(options.mcp?.resourceTools ?? [])],
    },
    ...(options.groups ?? []),
  ];
}

/**
 * Builds the whole default catalog from one options object, as the spec's
 * `NewDefaultRegistryWithOptions` does: the core tools (files, bash), the deferred groups (each
 * present only when its dependency is given and its switch is on, silently absent otherwise),
 * `find_tool` and `toolbox`, and the policy (permissions and approval broker) every run gets.
 *
 * @example
 * ```ts
 * const catalog = createDefaultCatalog({
 *   workspace: process.cwd(),
 *   permissions: { sandbox: "workspace", approval: "destructive" },
 *   webFetcher: new HttpWebFetcher(),
 *   skillsDir: workspaceSkillsDirectory(process.cwd(), "myapp"),
 * });
 * const run = catalog.createRun();
 * ```
 * @public
 */
export function createDefaultCatalog(options: DefaultCatalogOptions = {}): DefaultCatalog {
  checkNumberOption(options.agentDepth, "agentDepth", { min: 0, integer: true }, "createDefaultCatalog");
  const groups = groupsOf(options);
  const registry = createRegistry({
    groups,
    ...(options.tools === undefined ? {} : { tools: options.tools }),
    ...(options.approvals === undefined ? {} : { approvals: options.approvals }),
    ...(options.search === undefined ? {} : { search: options.search }),
  });
  // connect_mcp needs the registry it registers servers' tools into.
  if (options.mcp?.connectTool !== undefined) registry.register(options.mcp.connectTool(registry), { group: "connect_mcp" });
  const states: CatalogGroupState[] = groups.map((group) => {
    const tools = registry.list({ group: group.name }).map((tool) => tool.name);
    return { name: group.name, present: tools.length > 0, tools };
  });
  if (options.mcp?.connectTool !== undefined) states.push({ name: "connect_mcp", present: true, tools: ["connect_mcp"] });
  const workspace = options.permissions?.workspace ?? options.workspace;
  const base = resolvePermissionConfig({ ...options.permissions, ...(workspace === undefined ? {} : { workspace }) });
  return {
    registry,
    groups: states,
    // A run may ask for stricter permissions than the catalog's, never wider ones.
    createRun: (runOptions = {}) =>
      registry.createRun(
        runOptions.parent === undefined
          ? { ...runOptions, permissions: plain(narrowPermissions(base, runOptions.permissions)) }
          : runOptions,
      ),
  };
}
