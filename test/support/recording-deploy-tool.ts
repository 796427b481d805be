import { defineTool } from "agent-tool-catalog";

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
