/**
 * `agent-tool-catalog/redis`: state that outlives one process. Runs saved in Redis
 * ({@link RedisRunStore}), approvals answered from any process ({@link RedisApprovalBroker}),
 * cron jobs and delayed callbacks on BullMQ ({@link BullMqCronScheduler},
 * {@link BullMqCallbackManager}), subagents and workflow runs started in one process and awaited
 * from any other ({@link RedisSubagentManager}, {@link RedisWorkflowService}).
 * `ioredis` and `bullmq` are optional peer dependencies: the
 * root entry never loads them.
 *
 * @packageDocumentation
 */

export {
  BullMqCallbackManager,
  type BullMqCallbackManagerOptions,
  type CallbackWorkerOptions,
} from "./bullmq-callback-manager.js";
export { BullMqCronScheduler, type BullMqCronSchedulerOptions, type CronWorkerOptions } from "./bullmq-cron-scheduler.js";
export {
  type ApprovalDecisionOptions,
  RedisApprovalBroker,
  type RedisApprovalBrokerOptions,
  type StoredApprovalRequest,
} from "./redis-approval-broker.js";
export { RedisTimeoutError } from "./redis-deadline.js";
export { RedisRunStore, type RedisRunStoreOptions } from "./redis-run-store.js";
export { RedisSubagentManager, type RedisSubagentManagerOptions } from "./redis-subagent-manager.js";
export { RedisWorkflowService, type RedisWorkflowServiceOptions } from "./redis-workflow-service.js";
