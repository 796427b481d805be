// The optional host tool groups (Node-only: fs, http, timers). Each factory returns a ToolGroup
// that is absent, silently, until the host supplies what it needs; every dependency has an
// in-process default beside it.

export { AGENT_DEPTH_CONTEXT_KEY, type AgentDepthOptions, DEFAULT_MAX_FORK_DEPTH } from "./agents/agent-depth.js";
export type { AgentPromptRequest, AgentPromptResult, AgentRunner, AgentUsage } from "./agents/agent-runner.js";
export { type AgentToolOptions, agentToolGroup, createTaskCompleteTool, type TaskCompletion } from "./agents/agent-tools.js";
export { InProcessSubagentManager, type InProcessSubagentManagerOptions } from "./agents/in-process-subagent-manager.js";
export type {
  SubagentManager,
  SubagentRequest,
  SubagentSnapshot,
  SubagentStatus,
  SubagentWaitOptions,
} from "./agents/subagent-manager.js";
export { type SubagentToolOptions, subagentToolGroup } from "./agents/subagent-tools.js";
export {
  createSwarmTool,
  type SwarmTaskResult,
  type SwarmTaskStatus,
  type SwarmToolOptions,
  swarmToolGroup,
} from "./agents/swarm-tool.js";
export {
  type AskUserQuestionOptions,
  askUserQuestionToolGroup,
  createAskUserQuestionTool,
} from "./ask/ask-user-question-tool.js";
export { InMemoryQuestionBroker, type InMemoryQuestionBrokerOptions } from "./ask/in-memory-question-broker.js";
export type { QuestionBroker, QuestionOption, UserAnswer, UserQuestion } from "./ask/question-broker.js";
export type {
  CallbackManager,
  DelayedCallback,
  DelayedCallbackRequest,
  DelayedCallbackStatus,
} from "./callbacks/callback-manager.js";
export { type CallbackToolOptions, callbackToolGroup } from "./callbacks/callback-tools.js";
export {
  CALLBACK_LIMITS,
  checkCallbackDelay,
  InProcessCallbackManager,
  type InProcessCallbackManagerOptions,
} from "./callbacks/in-process-callback-manager.js";
export type {
  CronClient,
  CronExecution,
  CronExecutionStatus,
  CronExecutionType,
  CronJob,
  CronJobDetails,
  CronJobSpec,
  CronJobStatus,
} from "./cron/cron-client.js";
export {
  type CronContinuation,
  type CronContinuationRequest,
  type CronShellRequest,
  type CronShellResult,
  type CronShellRunner,
  checkCronJobRunnable,
} from "./cron/cron-runners.js";
export { CRON_FIELD_NAMES, type CronSchedule, parseCronSchedule } from "./cron/cron-schedule.js";
export { type CronToolOptions, cronToolGroup } from "./cron/cron-tools.js";
export { InProcessCronScheduler, type InProcessCronSchedulerOptions } from "./cron/in-process-cron-scheduler.js";
export { createMonitorTool, type MonitorToolOptions, monitorToolGroup } from "./monitor/monitor-tool.js";
export {
  type AgentProfile,
  formatAgentProfile,
  type ParsedProfile,
  type ProfileIssue,
  parseAgentProfile,
} from "./profiles/agent-profile.js";
export type { LocatedProfile, ProfileManifestRegistry, ProfileToolOptions } from "./profiles/profile-catalog.js";
export { type BrokenProfile, ProfileDirectory } from "./profiles/profile-directory.js";
export type { ProfileManifest } from "./profiles/profile-manifest.js";
export { type ProfileRecommendation, recommendProfiles } from "./profiles/profile-recommendation.js";
export { profileToolGroup } from "./profiles/profile-tools.js";
export {
  efficiencyReport,
  InMemoryRunHistory,
  type ProfileEfficiency,
  type ProfileRunRecord,
  type RunHistoryQuery,
  type RunHistorySource,
} from "./profiles/run-history.js";
export {
  type BrokenPromptExtension,
  DirectoryPromptExtensionStore,
  InMemoryPromptExtensionStore,
  type PromptExtension,
  type PromptExtensionKind,
  type PromptExtensionStore,
} from "./prompts/prompt-extension-store.js";
export {
  createPromptExtensionTool,
  type PromptExtensionToolOptions,
  promptExtensionToolGroup,
} from "./prompts/prompt-extension-tool.js";
export {
  MAX_RECIPE_STEPS,
  parseRecipe,
  type Recipe,
  RecipeDirectory,
  type RecipeStep,
  type RecipeValue,
} from "./recipes/recipe.js";
export { createRunRecipeTool, type RecipeToolOptions, recipeToolGroup } from "./recipes/recipe-tool.js";
export { recordRunTranscript } from "./sessions/record-transcript.js";
export { createSessionSearchTool, type SessionSearchOptions, sessionSearchToolGroup } from "./sessions/session-search-tool.js";
export {
  InMemoryTranscriptStore,
  type InMemoryTranscriptStoreOptions,
  type StoredTranscriptEntry,
  type TranscriptEntry,
  type TranscriptEntryKind,
  type TranscriptQuery,
  type TranscriptStore,
} from "./sessions/transcript-store.js";
export {
  type ChildRunSources,
  type RefreshChildRunsOptions,
  refreshChildRuns,
  subagentChildRun,
  type UnreadableChildRun,
  workflowChildRun,
} from "./shared/child-run-records.js";

export { type Clock, sleep, systemClock } from "./shared/clock.js";
export { CONVERSATION_ID_CONTEXT_KEY, conversationIdOf } from "./shared/conversation-id.js";
export { ENTITY_NAME_PATTERN } from "./shared/entity-name.js";
export { contextRun, type HostRun, type RunResolver } from "./shared/host-run.js";
export { ManualClock } from "./shared/manual-clock.js";
export { RunDirectory, type TrackableRun } from "./shared/run-directory.js";

export { DirectorySkillStore, SKILL_FILE_NAME } from "./skills/directory-skill-store.js";
export { InMemoryPackRegistry, type InMemoryPackRegistryOptions } from "./skills/in-memory-pack-registry.js";
export type { PackRegistry, SkillPack } from "./skills/pack-registry.js";
export { formatSkillDocument, parseSkillDocument, type SkillContext, type SkillDocument } from "./skills/skill-document.js";
export {
  createSkillManageTool,
  type SkillManageOptions,
  skillManageToolGroup,
  workspaceSkillsDirectory,
} from "./skills/skill-manage-tool.js";
export {
  SKILL_URI_PREFIX,
  type SkillResource,
  type SkillResourceContents,
  SkillResources,
  skillNameOf,
  skillUri,
} from "./skills/skill-resources.js";
export type { BrokenSkill, ManagedSkillStore, SkillStore, WritableSkillStore } from "./skills/skill-store.js";
export { createSkillTool, type SkillToolOptions } from "./skills/skill-tool.js";
export { type SkillToolGroupOptions, skillToolGroup } from "./skills/skill-tools.js";
export {
  DirectorySkillVerifier,
  type SkillIssue,
  type SkillVerification,
  type SkillVerifier,
  type SkillVerifyContext,
  VERIFICATION_FILE_NAME,
} from "./skills/skill-verifier.js";
export {
  parseSourcegraphResponse,
  SOURCEGRAPH_SEARCH_QUERY,
  type SourcegraphMatch,
  type SourcegraphResults,
} from "./sourcegraph/sourcegraph-search.js";
export { createSourcegraphTool, type SourcegraphOptions, sourcegraphToolGroup } from "./sourcegraph/sourcegraph-tool.js";

export { MAX_TODO_ITEMS, TODO_LIST, type TodoItem, TodoList, type TodoStatus } from "./todo/todo-list.js";
export { createTodoTool, todoToolGroup } from "./todo/todo-tool.js";

export { createAgenticFetchTool } from "./web/agentic-fetch-tool.js";
export { HttpWebFetcher, type HttpWebFetcherOptions } from "./web/http-web-fetcher.js";
export { createWebFetchTool } from "./web/web-fetch-tool.js";
export type { WebFetcher, WebFetchRequest, WebPage } from "./web/web-fetcher.js";
export { createWebSearchTool } from "./web/web-search-tool.js";
export type { WebSearcher, WebSearchRequest, WebSearchResult } from "./web/web-searcher.js";
export { type WebToolOptions, webToolGroup } from "./web/web-tools.js";
export {
  InProcessWorkflowService,
  type InProcessWorkflowServiceOptions,
  type WorkflowRunCheckpoint,
} from "./workflows/in-process-workflow-service.js";
export { WorkflowBudgetExceededError } from "./workflows/workflow-budget.js";
export type { JournaledAgentCall } from "./workflows/workflow-context.js";
export {
  defineWorkflow,
  type WorkflowAgentOptions,
  type WorkflowBudgetLimits,
  type WorkflowBudgetUsage,
  type WorkflowContext,
  type WorkflowDefinition,
  type WorkflowParallelOptions,
  type WorkflowStage,
} from "./workflows/workflow-definition.js";
export type {
  WorkflowResumeOptions,
  WorkflowRunSnapshot,
  WorkflowRunStatus,
  WorkflowService,
  WorkflowStartOptions,
  WorkflowSubmission,
  WorkflowSummary,
} from "./workflows/workflow-service.js";
export { type WorkflowToolOptions, workflowToolGroup } from "./workflows/workflow-tools.js";
