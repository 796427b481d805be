import type { ToolCallResult, ToolContext } from "agent-tool-catalog";
import type { RunResolver } from "../shared/host-run.js";

/**
 * Calls a tool from inside another tool's handler, through the same run: the run's visibility
 * (allowed tools, skill constraints), validation, approval policy and events apply as if the
 * model had made the call. A tool listed behind `toolbox` goes through `ctx.catalog.callListed`;
 * a deferred tool is activated first (a recipe is host-authored, so its steps may use deferred
 * tools the run is allowed to activate); everything else goes through the resolved run's `call`.
 */
export async function callThroughRun(
  context: ToolContext,
  resolveRun: RunResolver,
  name: string,
  args: unknown,
  callId: string,
): Promise<ToolCallResult> {
  if (context.catalog.isListed(name)) return context.catalog.callListed(name, args, { callId, signal: context.signal });
  const run = resolveRun(context);
  if (run === undefined) {
    return {
      ok: false,
      tool: name,
      callId,
      error: {
        code: "run_unavailable",
        message: `This host cannot call "${name}" from a recipe: the calling run is not known to it.`,
      },
    };
  }
  if (!context.catalog.isVisible(name)) context.catalog.activate([name], context.toolName);
  return run.call(name, args, { callId, signal: context.signal });
}
