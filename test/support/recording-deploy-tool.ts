import { type ApprovalBroker, applyPolicy, defineTool } from "agent-tool-catalog";

/**
 * A mutating tool `deploy` taking any object, whose handler records a deep copy of each input it
 * runs with into `ran` and answers `answer`: what the handler ran, set beside what listeners and
 * approvers were shown.
 */
export function recordingDeployTool(ran: unknown[], answer: unknown = "deployed") {
  return defineTool({
    name: "deploy",
    description: "Deploys.",
    mutating: true,
    inputSchema: { type: "object" },
    handler: (input: unknown) => {
      ran.push(structuredClone(input));
      return answer;
    },
  });
}

/**
 * Calls the {@link recordingDeployTool} `tool`'s handler outside any run, wrapped by `applyPolicy`
 * so `broker` is asked first (approval `destructive`); the handler's answer.
 */
export function callThroughPolicy(
  tool: ReturnType<typeof recordingDeployTool>,
  broker: ApprovalBroker,
  input: unknown,
): Promise<unknown> {
  const wrapped = applyPolicy(tool, {
    approvals: broker,
    permissions: { approval: "destructive", sandbox: "unrestricted", workspace: undefined } as never,
  });
  const context = { runId: "r", callId: "c", signal: new AbortController().signal } as never;
  return Promise.resolve(wrapped.handler(structuredClone(input) as never, context));
}
