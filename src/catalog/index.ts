// The default catalog builder: one call that assembles the core tools, the deferred groups whose
// dependencies the host gives, find_tool and the run policy (the spec's
// NewDefaultRegistryWithOptions). Node-only, like the tools and host subpaths it builds on.

// The host and tool types the options name, so users of this subpath can name them too.
export type {
  AgentRunner,
  CallbackManager,
  CronClient,
  PackRegistry,
  ProfileToolOptions,
  PromptExtensionStore,
  QuestionBroker,
  SkillStore,
  SkillVerifier,
  SourcegraphOptions,
  SubagentManager,
  TranscriptStore,
  WebFetcher,
  WebSearcher,
  WorkflowService,
} from "agent-tool-catalog/host";
export type { BashToolOptions, FileToolOptions } from "agent-tool-catalog/tools";
export {
  type CatalogGroupState,
  createDefaultCatalog,
  type DefaultCatalog,
  type DefaultCatalogMcpOptions,
  type DefaultCatalogOptions,
} from "./create-default-catalog.js";
