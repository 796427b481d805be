// The root entry: definitions, registry, runs, permissions and errors. It loads no optional
// dependency and nothing Node-only (no fs, no child_process): those live behind subpaths.

export { CatalogError, type CatalogErrorOptions } from "./errors/catalog-error.js";
export { ConfigurationError } from "./errors/configuration-error.js";
export { isModelErrorCode, MODEL_ERROR_CODES, type ModelErrorCode } from "./errors/model-error-code.js";
export { ToolDefinitionError, type ToolDefinitionErrorCode } from "./errors/tool-definition-error.js";
export { ToolError, type ToolErrorOptions } from "./errors/tool-error.js";

export type {
  CatalogEvents,
  RegistryChangedEvent,
  RunDiagnosticEvent,
  ToolActivatedEvent,
  ToolCalledEvent,
  ToolErrorEvent,
  ToolResultEvent,
} from "./events/catalog-events.js";
export { EventBus, type EventBusOptions, type EventListener } from "./events/event-bus.js";

export { FIND_TOOL_NAME, type FindToolOutput, type FoundTool } from "./meta/find-tool.js";
export { INDEX_INSTRUCTION } from "./meta/listing-index.js";
export { oneLineDescription } from "./meta/one-line-description.js";

export type {
  ApprovalBroker,
  ApprovalEvents,
  ApprovalRequest,
  ApprovalResolution,
  ApprovalWaitOptions,
} from "./policy/approval-broker.js";
export {
  type ApprovalDecideOptions,
  type ApprovalDecisionRefusal,
  type ApprovalDecisionResult,
  approvalArgumentsDigest,
} from "./policy/approval-decision.js";
export { InMemoryApprovalBroker, type InMemoryApprovalBrokerOptions } from "./policy/in-memory-approval-broker.js";
export { jsonAtAnyDepth } from "./policy/json-text.js";
export { narrowPermissions } from "./policy/narrow-permissions.js";
export {
  type ApprovalPolicy,
  DEFAULT_PERMISSIONS,
  type PermissionConfig,
  type ResolvedPermissionConfig,
  resolvePermissionConfig,
  type SandboxScope,
} from "./policy/permission-config.js";
export { applyPolicy, approvalRequiredBy, type ToolPolicy } from "./policy/tool-policy.js";

export { LOAD_MODES, type LoadMode, type ToolPlacement } from "./profiles/load-mode.js";
export { type FileToolSwitches, fileToolOptionsFromConfig, parseToolConfig, type ToolConfig } from "./profiles/tool-config.js";
export {
  BUILTIN_TAG,
  CORE_ESSENTIAL_TOOLS,
  CORE_LISTED_TOOLS,
  CORE_SET_TAG,
  TOOL_PROFILE_NAMES,
  type ToolProfileName,
} from "./profiles/tool-profile.js";
export { type OpenRunOptions, openRun } from "./registry/open-run.js";
export {
  createRegistry,
  type ListOptions,
  type RegisteredToolHandle,
  type RegisterOptions,
  Registry,
  type RegistryOptions,
} from "./registry/registry.js";
export { defineToolGroup, type ToolGroup } from "./registry/tool-group.js";
export { ActivationTracker, type ActivationTrackerState } from "./run/activation-tracker.js";
export { ALWAYS_AVAILABLE_TOOLS } from "./run/always-available-tools.js";
export type { RedactionSite, Redactor } from "./run/redact-result.js";
export { type CallOptions, type CreateRunOptions, Run, type RunDiagnostic, type RunState } from "./run/run.js";
export type { RunHost } from "./run/run-host.js";
export type { PendingApprovalState, RunStateV1, RunStateV2, SkillConstraintState } from "./run/run-state.js";
export {
  InMemoryRunStore,
  type RunCallClaim,
  type RunStore,
  RunStoreConflictError,
  type RunStoreSaveOptions,
  type StoredRunState,
} from "./run/run-store.js";
export { PROFILE_ENVIRONMENT_VARIABLE, TOOLBOX_TOOL_NAME, type ToolLoadOptions } from "./run/tool-load-plan.js";
export { TOOL_REACHES, type ToolReach } from "./run/tool-reach.js";
export { type Embedder, type EmbeddingCache, MemoryEmbeddingCache } from "./search/embedder.js";
export { HybridSearch, type HybridSearchCallOptions, type HybridSearchOptions } from "./search/hybrid-search.js";
export {
  type FieldWeight,
  type SearchDocument,
  type SearchField,
  SearchIndex,
  type SearchIndexOptions,
} from "./search/search-index.js";
export { type TokenizeOptions, tokenize } from "./search/tokenize.js";
export type { ChildRunState, ChildRunStatus } from "./tool/child-run-state.js";
export { defineTool, type JsonSchemaToolDefinitionInput, type SchemaToolDefinitionInput } from "./tool/define-tool.js";
export type { JsonObjectSchema, JsonSchema } from "./tool/json-schema.js";
export type { RunScope } from "./tool/run-scope.js";
export {
  createRunStorageKey,
  RunStorage,
  type RunStorageKey,
  type RunStorageOptions,
  type RunStoragePersistence,
} from "./tool/run-storage.js";
export type { StandardSchemaV1 } from "./tool/standard-schema.js";
export {
  formatToolResult,
  type RunErrorCode,
  type ToolCallErrorInfo,
  type ToolCallFailure,
  type ToolCallResult,
  type ToolCallSuccess,
} from "./tool/tool-call-result.js";
export {
  type FileContentPart,
  type ImageContentPart,
  isToolContent,
  type TextContentPart,
  type ToolContent,
  type ToolContentPart,
  toolContent,
} from "./tool/tool-content.js";
export type { ActivationOutcome, RunCatalog, SearchHit, SearchOptions, ToolContext } from "./tool/tool-context.js";
export {
  type AnyToolDefinition,
  TIER_CORE,
  TIER_DEFERRED,
  type ToolAnnotations,
  type ToolDefinition,
  type ToolDefinitionFields,
  type ToolInputSchema,
  type ToolTier,
} from "./tool/tool-definition.js";
export type { ToolDescriptor } from "./tool/tool-descriptor.js";
export { TOOL_NAME_PATTERN } from "./tool/tool-name.js";
export { untrustedJsonChecker } from "./tool/untrusted-json-checker.js";
export { type UntrustedJsonSchemaOptions, untrustedJsonSchema } from "./tool/untrusted-json-schema.js";
export type { ValidationIssue } from "./tool/validation-issue.js";
